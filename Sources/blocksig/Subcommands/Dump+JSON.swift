import BlockSignature
import BlockSignatureBinary
import BlockSignatureRuntime

// The `blocksig dump --json` document. Field names are a contract (`"schema": "blocksig-dump/1"`).

/// One `dump --json` document: the scan of one binary (one archive member).
struct DumpReportV1: Encodable {
  struct Summary: Encodable {
    var descriptors: Int
    var global_literals: Int
    var distinct_signatures: Int
  }

  struct Location: Encodable {
    var vaddr: UInt64?
    var section: String
    var section_offset: UInt64
    var file_offset: UInt64?
    var symbol: String?

    init(_ location: BinaryLocation) {
      vaddr = location.address
      section = location.section
      section_offset = location.sectionOffset
      file_offset = location.fileOffset
      symbol = location.symbol
    }

    func encode(to encoder: any Encoder) throws {
      var c = encoder.container(keyedBy: CodingKeys.self)
      try c.encode(vaddr, forKey: .vaddr)
      try c.encode(section, forKey: .section)
      try c.encode(section_offset, forKey: .section_offset)
      try c.encode(file_offset, forKey: .file_offset)
      try c.encode(symbol, forKey: .symbol)
    }
    enum CodingKeys: String, CodingKey { case vaddr, section, section_offset, file_offset, symbol }
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
    var section_offset: UInt64
    var symbol: String?
    var flags: UInt32
    var invoke: Code

    func encode(to encoder: any Encoder) throws {
      var c = encoder.container(keyedBy: CodingKeys.self)
      try c.encode(vaddr, forKey: .vaddr)
      try c.encode(section, forKey: .section)
      try c.encode(section_offset, forKey: .section_offset)
      try c.encode(symbol, forKey: .symbol)
      try c.encode(flags, forKey: .flags)
      try c.encode(invoke, forKey: .invoke)
    }
    enum CodingKeys: String, CodingKey { case vaddr, section, section_offset, symbol, flags, invoke }
  }

  struct Site: Encodable {
    var vaddr: UInt64?
    var section: String
    var section_offset: UInt64
    var file_offset: UInt64?
    var function: String?
    var function_demangled: String?
    var invoke: Code?
    var invoke_match: String?

    init(_ site: BlockConstructionSite) {
      vaddr = site.location.address
      section = site.location.section
      section_offset = site.location.sectionOffset
      file_offset = site.location.fileOffset
      function = site.function
      function_demangled = site.function.flatMap(SymbolDemangler.demangle)
      invoke = site.invoke.map(Code.init)
      invoke_match = site.invokeMatch?.rawValue
    }

    func encode(to encoder: any Encoder) throws {
      var c = encoder.container(keyedBy: CodingKeys.self)
      try c.encode(vaddr, forKey: .vaddr)
      try c.encode(section, forKey: .section)
      try c.encode(section_offset, forKey: .section_offset)
      try c.encode(file_offset, forKey: .file_offset)
      try c.encode(function, forKey: .function)
      try c.encode(function_demangled, forKey: .function_demangled)
      try c.encode(invoke, forKey: .invoke)
      try c.encode(invoke_match, forKey: .invoke_match)
    }
    enum CodingKeys: String, CodingKey {
      case vaddr, section, section_offset, file_offset, function, function_demangled, invoke, invoke_match
    }
  }

  struct Block: Encodable {
    var descriptor: Location
    var kind: String
    var size: UInt64
    var copy_dispose: CopyDispose?
    var signature: String?
    var declaration: String?
    var extended_layout: String?
    var literals: [Literal]
    var construction_sites: [Site]
    var evidence: [String]

    init(_ block: ScannedBlock) {
      descriptor = Location(block.descriptor)
      kind = block.kind.rawValue
      size = block.size
      if block.copyHelper != nil || block.disposeHelper != nil {
        copy_dispose = CopyDispose(copy: block.copyHelper.map(Code.init), dispose: block.disposeHelper.map(Code.init))
      }
      signature = block.signature
      declaration = block.declaration
      extended_layout = block.extendedLayout
      literals = block.literals.map {
        Literal(
          vaddr: $0.location.address, section: $0.location.section, section_offset: $0.location.sectionOffset,
          symbol: $0.location.symbol, flags: $0.flags, invoke: Code($0.invoke))
      }
      construction_sites = block.constructionSites.map(Site.init)
      evidence = block.evidence.map(\.rawValue)
    }

    func encode(to encoder: any Encoder) throws {
      var c = encoder.container(keyedBy: CodingKeys.self)
      try c.encode(descriptor, forKey: .descriptor)
      try c.encode(kind, forKey: .kind)
      try c.encode(size, forKey: .size)
      try c.encode(copy_dispose, forKey: .copy_dispose)
      try c.encode(signature, forKey: .signature)
      try c.encode(declaration, forKey: .declaration)
      try c.encode(extended_layout, forKey: .extended_layout)
      try c.encode(literals, forKey: .literals)
      try c.encode(construction_sites, forKey: .construction_sites)
      try c.encode(evidence, forKey: .evidence)
    }
    enum CodingKeys: String, CodingKey {
      case descriptor, kind, size, copy_dispose, signature, declaration, extended_layout, literals, construction_sites
      case evidence
    }
  }

  var schema = "blocksig-dump/1"
  var serializationVersion = 1
  var file: String
  var format: String
  var arch: String
  /// The data model the declarations are written for (`i386-linux`, `arm64-apple`, …).
  var data_model: String
  var kind: String
  var has_symbols: Bool
  var summary: Summary
  var blocks: [Block]
  var warnings: [String]

  init(_ report: BinaryScanReport) {
    file = report.file
    format = report.format.rawValue
    arch = report.architecture
    data_model = report.dataModel.name
    kind = report.kind.rawValue
    has_symbols = report.hasSymbols
    summary = Summary(
      descriptors: report.blocks.count, global_literals: report.globalLiteralCount,
      distinct_signatures: report.distinctSignatureCount)
    blocks = report.blocks.map(Block.init)
    warnings = report.warnings.map(\.message)
  }
}
