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
    @ExplicitNull var vaddr: UInt64? = nil
    var section: String
    var sectionOffset: UInt64
    @ExplicitNull var fileOffset: UInt64? = nil
    @ExplicitNull var symbol: String? = nil

    init(_ location: BinaryLocation) {
      vaddr = location.address
      section = location.section
      sectionOffset = location.sectionOffset
      fileOffset = location.fileOffset
      symbol = location.symbol
    }
  }

  struct Code: Encodable {
    @ExplicitNull var vaddr: UInt64? = nil
    @ExplicitNull var symbol: String? = nil
    /// `symbol` demangled (Swift, C++, a C++ or Objective-C block's invoke), when it is mangled.
    @ExplicitNull var demangled: String? = nil

    init(_ reference: CodeReference) {
      vaddr = reference.address
      symbol = reference.symbol
      demangled = reference.symbol.flatMap(SymbolDemangler.demangle)
    }
  }

  struct CopyDispose: Encodable {
    @ExplicitNull var copy: Code? = nil
    @ExplicitNull var dispose: Code? = nil
  }

  struct Literal: Encodable {
    @ExplicitNull var vaddr: UInt64? = nil
    var section: String
    var sectionOffset: UInt64
    @ExplicitNull var symbol: String? = nil
    var flags: UInt32
    var invoke: Code
  }

  struct Site: Encodable {
    @ExplicitNull var vaddr: UInt64? = nil
    var section: String
    var sectionOffset: UInt64
    @ExplicitNull var fileOffset: UInt64? = nil
    @ExplicitNull var function: String? = nil
    @ExplicitNull var functionDemangled: String? = nil
    @ExplicitNull var invoke: Code? = nil
    @ExplicitNull var invokeMatch: String? = nil

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
  }

  struct Block: Encodable {
    var descriptor: Location
    var kind: String
    var size: UInt64
    @ExplicitNull var copyDispose: CopyDispose? = nil
    @ExplicitNull var signature: String? = nil
    @ExplicitNull var declaration: String? = nil
    @ExplicitNull var extendedLayout: String? = nil
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
