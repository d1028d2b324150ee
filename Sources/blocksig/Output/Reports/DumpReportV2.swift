import BlockSignature
import BlockSignatureBinary
import BlockSignatureRuntime

// The `blocksig dump --json` document, one per line (JSON Lines). Field names are a contract
// (`"schema": "blocksig-dump/2"`, described by Schemas/blocksig-dump-2.schema.json).

/// One `dump --json` document, version 2: the scan of one binary (one archive member).
struct DumpReportV2: Encodable {
  struct Summary: Encodable {
    var descriptors: Int
    var globalLiterals: Int
    var distinctSignatures: Int
  }

  struct Location: Encodable {
    var vaddr: UInt64?
    var section: String
    var sectionOffset: UInt64
    var fileOffset: UInt64?
    var symbol: String?

    init(_ location: BinaryLocation) {
      vaddr = location.address
      section = location.section
      sectionOffset = location.sectionOffset
      fileOffset = location.fileOffset
      symbol = location.symbol
    }

    func encode(to encoder: any Encoder) throws {
      var c = encoder.container(keyedBy: CodingKeys.self)
      try c.encode(vaddr, forKey: .vaddr)
      try c.encode(section, forKey: .section)
      try c.encode(sectionOffset, forKey: .sectionOffset)
      try c.encode(fileOffset, forKey: .fileOffset)
      try c.encode(symbol, forKey: .symbol)
    }
    enum CodingKeys: String, CodingKey { case vaddr, section, sectionOffset, fileOffset, symbol }
  }

  struct Code: Encodable {
    var vaddr: UInt64?
    var symbol: String?
    /// `symbol` demangled (Swift, C++, a C++ or Objective-C block's invoke), when it is mangled.
    var demangled: String?

    init(_ reference: CodeReference) {
      vaddr = reference.address
      symbol = reference.symbol
      demangled = reference.symbol.flatMap(SymbolDemangler.demangle)
    }

    func encode(to encoder: any Encoder) throws {
      var c = encoder.container(keyedBy: CodingKeys.self)
      try c.encode(vaddr, forKey: .vaddr)
      try c.encode(symbol, forKey: .symbol)
      try c.encode(demangled, forKey: .demangled)
    }
    enum CodingKeys: String, CodingKey { case vaddr, symbol, demangled }
  }

  struct CopyDispose: Encodable {
    var copy: Code?
    var dispose: Code?

    func encode(to encoder: any Encoder) throws {
      var c = encoder.container(keyedBy: CodingKeys.self)
      try c.encode(copy, forKey: .copy)
      try c.encode(dispose, forKey: .dispose)
    }
    enum CodingKeys: String, CodingKey { case copy, dispose }
  }

  struct Literal: Encodable {
    var vaddr: UInt64?
    var section: String
    var sectionOffset: UInt64
    var symbol: String?
    var flags: UInt32
    var invoke: Code

    func encode(to encoder: any Encoder) throws {
      var c = encoder.container(keyedBy: CodingKeys.self)
      try c.encode(vaddr, forKey: .vaddr)
      try c.encode(section, forKey: .section)
      try c.encode(sectionOffset, forKey: .sectionOffset)
      try c.encode(symbol, forKey: .symbol)
      try c.encode(flags, forKey: .flags)
      try c.encode(invoke, forKey: .invoke)
    }
    enum CodingKeys: String, CodingKey { case vaddr, section, sectionOffset, symbol, flags, invoke }
  }

  struct Site: Encodable {
    var vaddr: UInt64?
    var section: String
    var sectionOffset: UInt64
    var fileOffset: UInt64?
    var function: String?
    var functionDemangled: String?
    var invoke: Code?
    var invokeMatch: String?

    init(_ site: BlockConstructionSite) {
      vaddr = site.location.address
      section = site.location.section
      sectionOffset = site.location.sectionOffset
      fileOffset = site.location.fileOffset
      function = site.function
      functionDemangled = site.function.flatMap(SymbolDemangler.demangle)
      invoke = site.invoke.map(Code.init)
      invokeMatch = site.invokeMatch?.rawValue
    }

    func encode(to encoder: any Encoder) throws {
      var c = encoder.container(keyedBy: CodingKeys.self)
      try c.encode(vaddr, forKey: .vaddr)
      try c.encode(section, forKey: .section)
      try c.encode(sectionOffset, forKey: .sectionOffset)
      try c.encode(fileOffset, forKey: .fileOffset)
      try c.encode(function, forKey: .function)
      try c.encode(functionDemangled, forKey: .functionDemangled)
      try c.encode(invoke, forKey: .invoke)
      try c.encode(invokeMatch, forKey: .invokeMatch)
    }
    enum CodingKeys: String, CodingKey {
      case vaddr, section, sectionOffset, fileOffset, function, functionDemangled, invoke, invokeMatch
    }
  }

  struct Block: Encodable {
    var descriptor: Location
    var kind: String
    var size: UInt64
    var copyDispose: CopyDispose?
    var signature: String?
    var declaration: String?
    var extendedLayout: String?
    var literals: [Literal]
    var constructionSites: [Site]
    var evidence: [String]

    init(_ block: ScannedBlock) {
      descriptor = Location(block.descriptor)
      kind = block.kind.rawValue
      size = block.size
      if block.copyHelper != nil || block.disposeHelper != nil {
        copyDispose = CopyDispose(copy: block.copyHelper.map(Code.init), dispose: block.disposeHelper.map(Code.init))
      }
      signature = block.signature
      declaration = block.declaration
      extendedLayout = block.extendedLayout
      literals = block.literals.map {
        Literal(
          vaddr: $0.location.address, section: $0.location.section, sectionOffset: $0.location.sectionOffset,
          symbol: $0.location.symbol, flags: $0.flags, invoke: Code($0.invoke))
      }
      constructionSites = block.constructionSites.map(Site.init)
      evidence = block.evidence.map(\.rawValue)
    }

    func encode(to encoder: any Encoder) throws {
      var c = encoder.container(keyedBy: CodingKeys.self)
      try c.encode(descriptor, forKey: .descriptor)
      try c.encode(kind, forKey: .kind)
      try c.encode(size, forKey: .size)
      try c.encode(copyDispose, forKey: .copyDispose)
      try c.encode(signature, forKey: .signature)
      try c.encode(declaration, forKey: .declaration)
      try c.encode(extendedLayout, forKey: .extendedLayout)
      try c.encode(literals, forKey: .literals)
      try c.encode(constructionSites, forKey: .constructionSites)
      try c.encode(evidence, forKey: .evidence)
    }
    enum CodingKeys: String, CodingKey {
      case descriptor, kind, size, copyDispose, signature, declaration, extendedLayout, literals, constructionSites
      case evidence
    }
  }

  /// The version field every command's JSON has; 2, as in `schema`.
  var serializationVersion = 2
  var schema = "blocksig-dump/2"
  var file: String
  var format: String
  var arch: String
  /// The data model the declarations are written for (`i386-linux`, `arm64-apple`, …).
  var dataModel: String
  var kind: String
  var hasSymbols: Bool
  var summary: Summary
  var blocks: [Block]
  var warnings: [String]

  init(_ report: BinaryScanReport) {
    file = report.file
    format = report.format.rawValue
    arch = report.architecture
    dataModel = report.dataModel.name
    kind = report.kind.rawValue
    hasSymbols = report.hasSymbols
    summary = Summary(
      descriptors: report.blocks.count, globalLiterals: report.globalLiteralCount,
      distinctSignatures: report.distinctSignatureCount)
    blocks = report.blocks.map(Block.init)
    warnings = report.warnings.map(\.message)
  }
}
