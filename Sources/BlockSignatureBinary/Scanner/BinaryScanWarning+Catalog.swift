// The scanner's warning messages, in one place: a kind for each, and a function per message
// that names the thing and gives hex offsets (LLVM Object's style). Call sites say what they
// found; the words live here.

import BlockSignature

extension BinaryScanWarning {
  /// What a warning is about, whatever structure it concerns. Extensible.
  public struct Kind: RawRepresentable, Hashable, Sendable, Codable, CustomStringConvertible {
    /// The kind's stable identifier, such as `"pastEndOfFile"`.
    public var rawValue: String
    /// Creates a kind from its identifier.
    public init(rawValue: String) { self.rawValue = rawValue }

    /// A table, section, literal or relocation that the file (or its section) does not hold.
    public static let pastEndOfFile = Kind(rawValue: "pastEndOfFile")
    /// An address range that runs past 2^64.
    public static let wrapsAround = Kind(rawValue: "wrapsAround")
    /// Tables not read because they repeat bytes read already, beyond the file's size.
    public static let notRead = Kind(rawValue: "notRead")
    /// An index or offset past the table it indexes.
    public static let indexOutOfRange = Kind(rawValue: "indexOutOfRange")
    /// A candidate that is not a block after all (its shape, flags or signature).
    public static let notABlock = Kind(rawValue: "notABlock")
    /// A bound on the scan's work or output was reached.
    public static let limitReached = Kind(rawValue: "limitReached")
    /// Fixups of a linked Mach-O image that cannot be decoded, or that overlap.
    public static let malformedFixups = Kind(rawValue: "malformedFixups")

    /// What the kind means, in a few words; an unknown kind reads as its identifier.
    public var description: String {
      switch rawValue {
      case "pastEndOfFile": "past end of file"
      case "wrapsAround": "wraps around the address space"
      case "notRead": "not read"
      case "indexOutOfRange": "index out of range"
      case "notABlock": "not a block"
      case "limitReached": "limit reached"
      case "malformedFixups": "malformed fixups"
      default: rawValue
      }
    }
  }

  // MARK: Past the end of the file or of a section

  /// `thing at O (size S) goes past end of file (size F)`.
  static func pastEndOfFile(_ thing: String, at offset: UInt64, size: UInt64, fileSize: Int) -> Self {
    Self(
      kind: .pastEndOfFile, offset: offset,
      message: "\(thing) at \(hex(offset)) (size \(hex(size))) goes past end of file (size \(hex(fileSize)))")
  }

  /// A table given by its entries: `thing at O (entries) goes past end of file (size F)`.
  static func tablePastEndOfFile(
    _ thing: String, at offset: UInt64, entries: String, plural: Bool = false, fileSize: Int
  )
    -> Self
  {
    Self(
      kind: .pastEndOfFile, offset: offset,
      message:
        "\(thing) at \(hex(offset)) (\(entries)) \(plural ? "go" : "goes") past end of file (size \(hex(fileSize)))")
  }

  /// `subject verb past end of section NAME (size S)`: a literal, a descriptor, a relocation.
  static func pastEndOfSection(_ subject: String, _ verb: String, section: String, size: UInt64, offset: UInt64?)
    -> Self
  {
    Self(
      kind: .pastEndOfFile, offset: offset,
      message: "\(subject) \(verb) past end of section \(section) (size \(hex(size)))")
  }

  // MARK: Addresses

  /// A section whose address range runs past 2^64.
  static func wrapsAround(section: String, address: UInt64, size: UInt64, offset: UInt64) -> Self {
    Self(
      kind: .wrapsAround, offset: offset,
      message: "section \(section) at address \(hex(address)) with size \(hex(size)) wraps around the address space")
  }

  /// A section in an object whose synthetic placement overflows.
  static func impossibleSize(section: String, size: UInt64, offset: UInt64) -> Self {
    Self(kind: .wrapsAround, offset: offset, message: "section \(section) has an impossible size \(hex(size))")
  }

  // MARK: Tables not read

  /// `N tables not read (first: NAME at O): they overlap the tables read before them, …`.
  static func notRead(_ count: Int, _ tables: String, first: String, at offset: UInt64, fileSize: Int) -> Self {
    let shortName = tables.split(separator: " ").last.map(String.init) ?? tables
    return Self(
      kind: .notRead, offset: offset,
      message:
        "\(count) \(tables) not read (first: \(first) at \(hex(offset))): they overlap the \(shortName) read before them, together larger than the file (size \(hex(fileSize)))"
    )
  }

  // MARK: Indices

  /// A symbol table whose string table index is past the section header table.
  static func stringTableIndexPastSections(table: String, link: UInt32, sectionCount: Int, offset: UInt64) -> Self {
    Self(
      kind: .indexOutOfRange, offset: offset,
      message:
        "symbol table \(table) links to string table section \(link), past the section header table (\(sectionCount) sections)"
    )
  }

  /// `e_shstrndx` past the section header table.
  static func nameTableIndexPastSections(index: UInt64, sectionCount: Int, offset: UInt64) -> Self {
    Self(
      kind: .indexOutOfRange, offset: offset,
      message: "section name table index \(index) is past the section header table (\(sectionCount) sections)")
  }

  /// Symbols whose name offset is past their string table, counted once per table.
  static func symbolNamesPastStrings(count: Int, table: String, first: UInt64, offset: UInt64) -> Self {
    Self(
      kind: .indexOutOfRange, offset: offset,
      message:
        "\(count) symbols in \(table) have a name offset past the end of their string table (first: symbol \(first))")
  }

  /// Symbols whose section index is past the section header table, counted once per table.
  static func symbolSectionsPastSections(count: Int, table: String, first: UInt64, offset: UInt64) -> Self {
    Self(
      kind: .indexOutOfRange, offset: offset,
      message:
        "\(count) symbols in \(table) refer to a section past the section header table (first: symbol \(first))")
  }

  /// A relocation whose symbol index is past its symbol table.
  static func relocationSymbolPastTable(at offset: UInt64, in section: String? = nil, symbol: Int) -> Self {
    let place = section.map { " in \($0)" } ?? ""
    return Self(
      kind: .indexOutOfRange, offset: offset,
      message: "relocation at \(hex(offset))\(place) refers to symbol \(symbol) past end of symbol table")
  }

  /// Relocations whose symbol table could not be read.
  static func relocationsWithoutSymbols(section: String, link: UInt32, offset: UInt64) -> Self {
    Self(
      kind: .indexOutOfRange, offset: offset,
      message: "relocations in \(section) refer to symbols of section \(link), which is not a readable symbol table")
  }

  // MARK: Candidates that are not blocks

  private static func notABlock(_ message: String, offset: UInt64) -> Self {
    Self(kind: .notABlock, offset: offset, message: message)
  }

  /// A global literal whose flags lack `BLOCK_IS_GLOBAL`.
  static func literalNotGlobal(at place: String, flags: UInt32, offset: UInt64) -> Self {
    notABlock(
      "global block literal at \(place) has flags \(hex(UInt64(flags))) without BLOCK_IS_GLOBAL", offset: offset)
  }

  /// A global literal whose descriptor pointer leads nowhere.
  static func literalDescriptorOutsideSections(at place: String, offset: UInt64) -> Self {
    notABlock(
      "global block literal at \(place) has a descriptor pointer that points outside every section", offset: offset)
  }

  /// A descriptor candidate outside every section.
  static func descriptorOutsideSections(at place: String, offset: UInt64) -> Self {
    notABlock("descriptor at \(place) is outside every section", offset: offset)
  }

  /// A descriptor candidate too close to 2^64 to read.
  static func descriptorAtTopOfAddressSpace(at place: String, offset: UInt64) -> Self {
    notABlock("descriptor at \(place) is at the top of the address space", offset: offset)
  }

  /// A descriptor symbol whose words are not a descriptor's.
  static func symbolNotADescriptor(_ symbol: String, at place: String, offset: UInt64) -> Self {
    notABlock("symbol \(symbol) at \(place) does not have the shape of a block descriptor", offset: offset)
  }

  /// A descriptor's signature that is not a block signature.
  static func signatureDoesNotParse(_ signature: String, descriptor place: String, offset: UInt64) -> Self {
    notABlock(
      "signature \"\(signature)\" of descriptor at \(place) does not parse as a block signature", offset: offset)
  }

  /// A signature pointer to bytes that are not a terminated string.
  static func signatureNotAString(descriptor place: String, target: String, offset: UInt64) -> Self {
    notABlock(
      "signature pointer of descriptor at \(place) points to \(target), not to a terminated string", offset: offset)
  }

  /// A signature pointer bound to a symbol no image here defines.
  static func signatureUndefinedSymbol(descriptor place: String, symbol: String, offset: UInt64) -> Self {
    notABlock("signature pointer of descriptor at \(place) refers to undefined symbol \(symbol)", offset: offset)
  }

  /// A signature pointer holding a value that is not an address.
  static func signatureNotAnAddress(descriptor place: String, value: UInt64, offset: UInt64) -> Self {
    notABlock("signature pointer of descriptor at \(place) holds \(hex(value)), not an address", offset: offset)
  }

  // MARK: Limits

  /// More descriptor loads than the construction-site scan lists.
  static func tooManySiteLoads(limit: Int, after place: String, offset: UInt64?) -> Self {
    Self(
      kind: .limitReached, offset: offset,
      message: "more than \(limit) loads of a block descriptor in the code; sites after \(place) are not listed")
  }

  /// Construction sites not traced back for their invoke.
  static func untracedSites(_ count: Int, limit: Int) -> Self {
    Self(
      kind: .limitReached, offset: nil,
      message: "\(count) construction sites were not traced back for their invoke: at most \(limit) are")
  }

  /// Warnings counted but not kept.
  static func warningsDropped(_ count: Int, limit: Int) -> Self {
    Self(
      kind: .limitReached, offset: nil, message: "\(count) more warnings not shown (only the first \(limit) are kept)")
  }

  // MARK: Fixups

  /// Chained fixups that visit slots more than once.
  static func overlappingFixups(_ count: Int) -> Self {
    Self(
      kind: .malformedFixups, offset: nil,
      message:
        "\(count) pointer slots are fixed up more than once (chains overlap); a bind is kept over a rebase, else the first fixup"
    )
  }
}
