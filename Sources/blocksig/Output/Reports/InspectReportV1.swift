import BlockSignature
import BlockSignatureBinary
import BlockSignatureRuntime
import Foundation

/// The `blocksig inspect --json` document, version 1.
struct InspectReportV1: Encodable {
  struct Symbol: Encodable {
    var address: String
    var symbol: String?
    var nearestSymbol: String?
    /// `nearestSymbol` demangled (Swift, C++, a C++ or Objective-C block's invoke), when it is
    /// mangled.
    var demangled: String?
    var image: String?

    init(_ address: UInt, _ info: SymbolInfo?) {
      self.address = hex(address)
      symbol = info?.name
      nearestSymbol = info?.displayName
      if let name = info?.name ?? info?.nearestName, let readable = SymbolDemangler.demangle(name) {
        demangled = info?.name != nil ? readable : readable + "+" + hex(info?.nearestOffset ?? 0)
      }
      image = info?.imagePath
    }

    /// The name the text form shows: demangled when asked and possible.
    func name(demangling: Bool) -> String? { demangling ? demangled ?? nearestSymbol : nearestSymbol }
  }

  /// Where the code builds blocks with this descriptor (a block of another process).
  struct Site: Encodable {
    var address: String?
    var function: String?
    var functionDemangled: String?
    var invoke: String?
    var invokeAddress: String?
    var invokeMatch: String?

    init(_ site: BlockConstructionSite) {
      address = site.location.address.map { hex(UInt($0)) }
      function = site.function
      functionDemangled = site.function.flatMap(SymbolDemangler.demangle)
      invoke = site.invoke?.symbol
      invokeAddress = site.invoke?.address.map { hex(UInt($0)) }
      invokeMatch = site.invokeMatch?.rawValue
    }
  }

  struct Flags: Encodable {
    var raw: String
    var names: [String]

    /// The flags of a block of `runtime`: compiler-rt counts references from bit 0, which
    /// libclosure names `BLOCK_DEALLOCATING`, so under its convention that bit is no flag.
    init(_ flags: BlockFlags, runtime: BlocksRuntime?) {
      raw = hex(UInt(UInt32(bitPattern: flags.rawValue)))
      names = flags.names
      if runtime?.referenceCountConvention == .unitsOfOne { names.removeAll { $0 == "BLOCK_DEALLOCATING" } }
    }
  }

  struct Descriptor: Encodable {
    var address: String
    var size: Int
    var reserved: String
    var small: Bool
  }

  struct Layout: Encodable {
    struct Instruction: Encodable {
      var opcode: String
      var count: Int
    }
    var form: String
    var word: String
    var instructions: [Instruction]
  }

  struct Runtime: Encodable {
    var path: String
    var exportsSignatureQueries: Bool
    var referenceCountConvention: String

    init(_ runtime: BlocksRuntime) {
      path = runtime.path
      exportsSignatureQueries = runtime.exportsSignatureQueries
      referenceCountConvention = runtime.referenceCountConvention.rawValue
    }
  }

  let serializationVersion = 1
  /// The library loaded (`--library`); absent for a block read from another process.
  var library: String?
  /// The function or variable that gave the block; absent for a block read from another process.
  var symbol: String?
  /// `function`, `variable`, or `process` (`--pid` and `--address`).
  var source: String
  /// The process the block was read from (`--pid`).
  var pid: Int32?
  var address: String
  var kind: String
  var flags: Flags
  var isa: Symbol
  var descriptor: Descriptor
  var size: Int
  var copyHelper: Symbol?
  var disposeHelper: Symbol?
  var signature: String?
  var declaration: String?
  var swiftType: String?
  var usesStructReturn: Bool
  var extendedLayout: Layout?
  var invoke: Symbol
  /// For a stack, heap or noescape block of another process: the construction sites of its
  /// descriptor in its image's code (absent otherwise).
  var constructionSites: [Site]?
  var referenceCount: Int?
  var runtime: Runtime?
  var loadedRuntimes: [Runtime]
  var warnings: [String]

  /// The report of a block a library gave (`--library`).
  init(
    library: String, symbol: String, source: String, info: BlockInfo, runtime: BlocksRuntime?,
    loadedRuntimes: [BlocksRuntime], warnings: [String]
  ) {
    self.init(
      source: source, info: info, isa: SymbolInfo(address: info.isa), runtime: runtime, loadedRuntimes: loadedRuntimes,
      warnings: warnings)
    self.library = library
    self.symbol = symbol
  }

  /// The report of a block read from process `pid` (`--pid`, `--address`).
  init(
    process pid: Int32, info: BlockInfo, runtime: BlocksRuntime?, loadedRuntimes: [BlocksRuntime], warnings: [String]
  ) {
    self.init(
      source: "process", info: info, isa: info.isaSymbolInfo, runtime: runtime, loadedRuntimes: loadedRuntimes,
      warnings: warnings)
    self.pid = pid
  }

  private init(
    source: String, info: BlockInfo, isa isaInfo: SymbolInfo?, runtime: BlocksRuntime?,
    loadedRuntimes: [BlocksRuntime], warnings: [String]
  ) {
    self.source = source
    address = hex(info.address)
    kind = info.kind.rawValue
    flags = Flags(info.flags, runtime: runtime)
    isa = Symbol(info.isa, isaInfo)
    descriptor = Descriptor(
      address: hex(info.descriptorAddress), size: info.size, reserved: hex(info.descriptorReserved),
      small: info.hasSmallDescriptor)
    size = info.size
    copyHelper = info.copyHelperAddress.map { Symbol($0, info.copyHelper?.resolvingLocalSymbols()) }
    disposeHelper = info.disposeHelperAddress.map { Symbol($0, info.disposeHelper?.resolvingLocalSymbols()) }
    signature = info.signature
    let parsed = try? info.parsedSignature()
    declaration = parsed?.cDeclaration()
    swiftType = parsed?.swiftType()
    usesStructReturn = info.usesStructReturn
    extendedLayout = info.extendedLayout.map { layout in
      Layout(
        form: layout.form.rawValue, word: hex(info.layoutWord),
        instructions: layout.instructions.map { Layout.Instruction(opcode: "\($0.opcode)", count: $0.count) })
    }
    invoke = Symbol(info.invokeAddress, info.invoke?.resolvingLocalSymbols())
    constructionSites = info.constructionSites.map { $0.map(Site.init) }
    referenceCount = info.referenceCount
    self.runtime = runtime.map(Runtime.init)
    self.loadedRuntimes = loadedRuntimes.map(Runtime.init)
    self.warnings = warnings
  }

  /// The human-readable form, with demangled names when `demangling`.
  func text(demangling: Bool = false) -> String {
    func symbolText(_ symbol: Symbol?) -> String {
      guard let symbol else { return "none" }
      return symbol.address + (symbol.name(demangling: demangling).map { " \($0)" } ?? "")
    }
    var lines: [(String, String)] = [
      (
        "block",
        pid.map { "\(address) (\(kind)) in process \($0)" }
          ?? "\(address) (\(kind)) from \(source) '\(symbol ?? "")' in \(library ?? "")"
      ),
      ("flags", "\(flags.raw) \(flags.names.joined(separator: " "))"),
      ("isa", symbolText(isa)),
      ("descriptor", "\(descriptor.address)\(descriptor.small ? " (small)" : "") reserved \(descriptor.reserved)"),
      ("size", "\(size) bytes"),
      ("copy helper", symbolText(copyHelper)),
      ("dispose helper", symbolText(disposeHelper)),
      ("signature", signature ?? Self.noSignature(hasSignatureFlag: flags.names.contains("BLOCK_HAS_SIGNATURE"))),
      ("declaration", declaration ?? "none"),
      ("struct return", usesStructReturn ? "yes (BLOCK_USE_STRET)" : "no"),
    ]
    if let extendedLayout {
      let steps = extendedLayout.instructions.map { "\($0.opcode) × \($0.count)" }.joined(separator: ", ")
      lines.append(
        ("extended layout", "\(extendedLayout.form) \(extendedLayout.word)\(steps.isEmpty ? "" : ": " + steps)"))
    } else {
      lines.append(("extended layout", "none (no BLOCK_HAS_EXTENDED_LAYOUT)"))
    }
    lines.append(("invoke", symbolText(invoke)))
    if let constructionSites {
      // Where the code builds blocks with this descriptor: the block was made at one of them.
      for site in constructionSites {
        let function = (demangling ? site.functionDemangled ?? site.function : site.function) ?? "?"
        lines.append(("built at", "\(site.address ?? "?") in \(function)"))
      }
      if constructionSites.isEmpty { lines.append(("built at", "not found in its image's code")) }
    }
    lines.append(("reference count", referenceCount.map(String.init) ?? "n/a (\(kind) block)"))
    if let runtime {
      let lineage =
        runtime.exportsSignatureQueries
        ? "libclosure lineage, exports _Block_signature" : "compiler-rt lineage, no signature queries"
      // The JSON keeps the case name (`unitsOfTwo`); the text says what it means.
      let convention =
        BlocksRuntime.ReferenceCountConvention(rawValue: runtime.referenceCountConvention)?.description
        ?? runtime.referenceCountConvention
      lines.append(("runtime", "\(runtime.path) (\(lineage); count in \(convention))"))
    } else {
      lines.append(("runtime", "none loaded"))
    }
    let width = lines.map(\.0.count).max() ?? 0
    return lines.map { $0.0.padding(toLength: width, withPad: " ", startingAt: 0) + "  " + $0.1 + "\n" }.joined()
  }
}

/// The `blocksig inspect --pid … --all --json` document, version 1: every block found in a
/// process, each as `inspect --address` reports it.
struct InspectProcessReportV1: Encodable {
  let serializationVersion = 1
  var source = "process"
  var pid: Int32
  var blockCount: Int
  var blocks: [InspectReportV1]
  var loadedRuntimes: [InspectReportV1.Runtime]
  var warnings: [String]

  init(pid: Int32, blocks: [InspectReportV1], loadedRuntimes: [BlocksRuntime], warnings: [String]) {
    self.pid = pid
    self.blocks = blocks
    blockCount = blocks.count
    self.loadedRuntimes = loadedRuntimes.map(InspectReportV1.Runtime.init)
    self.warnings = warnings
  }

  /// One line per block (address, kind, signature, declaration, invoke), then a summary;
  /// demangled names when `demangling`.
  func text(demangling: Bool = false) -> String {
    var lines = blocks.map { block in
      [
        block.address, block.kind, block.signature ?? "-", block.declaration ?? "-",
        block.invoke.name(demangling: demangling) ?? block.invoke.address,
      ].joined(separator: "  ")
    }
    let counts = ["global", "heap", "stack", "noescape"].compactMap { kind -> String? in
      let count = blocks.filter { $0.kind == kind }.count
      return count == 0 ? nil : "\(count) \(kind)"
    }
    let noun = blocks.count == 1 ? "block" : "blocks"
    lines.append(
      "process \(pid): \(blocks.count) \(noun)" + (counts.isEmpty ? "" : " (\(counts.joined(separator: ", ")))"))
    return lines.map { $0 + "\n" }.joined()
  }
}

extension InspectReportV1 {
  /// Why a block shows no signature: the compiler wrote none, or the flag says there is one
  /// and the pointer is NULL.
  static func noSignature(hasSignatureFlag: Bool) -> String {
    hasSignatureFlag
      ? "none (BLOCK_HAS_SIGNATURE is set, but the signature pointer is NULL)"
      : "none (BLOCK_HAS_SIGNATURE is not set: the compiler wrote none)"
  }
}
