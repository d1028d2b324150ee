// The result of scanning one binary: every block descriptor found, with its literals and evidence.

import BlockSignature

/// The container format of a scanned binary.
public enum BinaryFormat: String, Hashable, Sendable, Codable {
  /// 32-bit ELF (`ELFCLASS32`), either byte order.
  case elf32 = "ELF32"
  /// 64-bit ELF (`ELFCLASS64`), either byte order.
  case elf64 = "ELF64"
  /// 64-bit Mach-O (`MH_MAGIC_64`), objects and linked images.
  case machO64 = "Mach-O 64"
}

/// What a binary is: an object file, a shared library, an executable.
public enum BinaryKind: String, Hashable, Sendable, Codable {
  /// A relocatable object (`.o`, archive member, Mach-O `MH_OBJECT`). Addresses are not final.
  case relocatable
  /// A shared library (ELF `ET_DYN` without an interpreter, Mach-O dylib or bundle).
  case sharedLibrary = "shared"
  /// A position-independent executable (ELF `ET_DYN` with `PT_INTERP`).
  case positionIndependentExecutable = "pie"
  /// A dynamically linked fixed-address executable.
  case executable
  /// A statically linked executable (no interpreter, no dynamic section).
  case staticExecutable = "static"
}

/// A place in a binary: address (absent in relocatable objects), section, offsets and symbol.
public struct BinaryLocation: Hashable, Sendable {
  /// The virtual address, or `nil` in a relocatable object where addresses are not final.
  public var address: UInt64?
  /// The section name (`.data.rel.ro`, `__DATA,__const`).
  public var section: String
  /// The offset from the start of the section.
  public var sectionOffset: UInt64
  /// The offset in the file (in an archive: in the member), or `nil` for zero-fill sections.
  public var fileOffset: UInt64?
  /// The symbol defined exactly here, if the binary has one.
  public var symbol: String?
}

/// A code address referred to by a block: an invoke function or a copy/dispose helper.
public struct CodeReference: Hashable, Sendable {
  /// The address, or `nil` in a relocatable object or when it is an undefined symbol.
  public var address: UInt64?
  /// The symbol at that address, or the undefined symbol a relocation names.
  public var symbol: String?
}

/// A place in a binary's code that builds a block on the stack: an instruction that loads the
/// address of the block's descriptor, for the literal's `descriptor` field, and the invoke
/// function the same code stores in the field before it.
///
///     let report = try BinaryScanner.scan(fileAt: "libdispatch.so")[0]
///     for block in report.blocks where block.kind == .stack {
///       for site in block.constructionSites {
///         print(site.function ?? "?", site.invoke?.symbol ?? "?")
///       }
///     }
///
/// Sites are found in x86_64 and AArch64 (arm64, arm64e) images: linked ones, and ELF and
/// Mach-O relocatable objects through the relocations of their code (see
/// ``ScannedBlock/constructionSites``).
public struct BlockConstructionSite: Hashable, Sendable {
  /// How ``invoke`` was told apart from other code addresses near the descriptor's load.
  public enum InvokeMatch: String, Hashable, Sendable, Codable {
    /// The code stores the descriptor's address in a stack slot and a code address in the
    /// word before it, where a literal's `invoke` field is.
    case slot
    /// The code passes the descriptor's address to the function it calls or jumps to next,
    /// which stores it (Swift merges functions that differ only in such constants, `…Tm`, and
    /// passes them in): the invoke is the code address that function stores in the word
    /// before.
    case callee
  }

  /// The instruction that loads the descriptor's address (or, in a fixed-address executable,
  /// stores it as an immediate): its address (none in a relocatable object), section and
  /// offsets. Its `symbol` is nil: see ``function``.
  public var location: BinaryLocation
  /// The function that instruction lies in, when the binary's symbols say (not in stripped
  /// files).
  public var function: String?
  /// The block's invoke function, or nil when none was found stored beside the descriptor
  /// (code that keeps the address in a register and passes it on, say). No guess is made.
  public var invoke: CodeReference?
  /// How ``invoke`` was found; nil when it was not.
  public var invokeMatch: InvokeMatch?
}

/// A global block literal (`isa == &_NSConcreteGlobalBlock`) that uses a descriptor.
public struct GlobalBlockLiteral: Hashable, Sendable {
  /// Where the literal is.
  public var location: BinaryLocation
  /// The literal's `flags` word. The corresponding clang ABI field is `Block_layout.flags`.
  public var flags: UInt32
  /// The literal's `invoke` function.
  public var invoke: CodeReference
}

/// How a descriptor was found. A descriptor found several ways is reported once with all of them.
public enum BlockEvidence: String, Hashable, Sendable, Codable, CaseIterable, Comparable {
  /// A global literal's `descriptor` field points at it.
  case literal
  /// A symbol names it (`__block_descriptor_tmp…`, `__block_descriptor_<size>_…`, `block_descriptor.N`).
  case symbol
  /// A pointer slot refers to a string that parses as a block signature, and the words before
  /// that slot have the shape of a descriptor. Not in a section of variables (ELF `.data`,
  /// Mach-O `__DATA,__data`), where no compiler puts a descriptor.
  case structural

  /// Orders evidence as the cases are declared: ``literal``, ``symbol``, ``structural``.
  public static func < (lhs: Self, rhs: Self) -> Bool {
    allCases.firstIndex(of: lhs)! < allCases.firstIndex(of: rhs)!
  }
}

/// A block found in a binary: one descriptor and everything known about it.
///
///     let report = try BinaryScanner.scan(fileAt: "a.out")[0]
///     for block in report.blocks { print(block.signature ?? "-", block.kind) }
public struct ScannedBlock: Hashable, Sendable {
  /// Where the descriptor is.
  public var descriptor: BinaryLocation
  /// `.global` if a global literal (`_NSConcreteGlobalBlock`) in the file uses this
  /// descriptor, else `.stack`: the block is made on the stack at run time. A file holds no
  /// heap or noescape blocks.
  public var kind: BlockKind
  /// The block literal size. The corresponding clang ABI field is `Block_descriptor_1.size`.
  public var size: UInt64
  /// The copy helper, when the descriptor has `Block_descriptor_2`.
  public var copyHelper: CodeReference?
  /// The dispose helper, when the descriptor has `Block_descriptor_2`.
  public var disposeHelper: CodeReference?
  /// The signature. The corresponding clang ABI field is `Block_descriptor_3.signature`.
  public var signature: String?
  /// The C declaration of the block type, when the signature could be decoded, for the
  /// report's ``BinaryScanReport/dataModel``.
  public var declaration: String?
  /// The extended layout, when a literal's flags say `BLOCK_HAS_EXTENDED_LAYOUT`: the inline
  /// value (`0xXYZ`) or the layout bytes in hex.
  public var extendedLayout: String?
  /// Every global literal that uses the descriptor, sorted by location.
  public var literals: [GlobalBlockLiteral]
  /// How the descriptor was found, sorted.
  public var evidence: [BlockEvidence]
  /// The places in the code that build a block with this descriptor on the stack, by address:
  /// each with the invoke function it stores (so a stack block's code is found, as a global
  /// block's is through its literal). Several blocks may share one descriptor (clang names
  /// descriptors by their contents and merges equal ones), so the sites may name several
  /// invoke functions. Found in x86_64 and AArch64 (arm64, arm64e) images, linked or
  /// relocatable objects (whose code's relocations say where it points); empty for other
  /// architectures and for global blocks.
  public var constructionSites: [BlockConstructionSite] = []

  /// The distinct invoke functions of ``constructionSites``, in the order first found.
  public var constructionInvokes: [CodeReference] {
    var seen = Set<CodeReference>()
    return constructionSites.compactMap(\.invoke).filter { seen.insert($0).inserted }
  }
}

/// Everything found in one binary (one archive member counts as one binary).
public struct BinaryScanReport: Hashable, Sendable {
  /// The path as given, with `(member)` appended for archive members.
  public var file: String
  /// The container format.
  public var format: BinaryFormat
  /// The architecture, in the spelling of the format's tools (`x86_64`, `aarch64`, `arm64`, `i386`).
  public var architecture: String
  /// The data model the blocks' C declarations are written for (``ScannedBlock/declaration``):
  /// the architecture's, e.g. `DataModel/i386Linux` for an i386 ELF file.
  public var dataModel: DataModel
  /// What the binary is.
  public var kind: BinaryKind
  /// Whether the binary has a static symbol table (`.symtab`, Mach-O `LC_SYMTAB` local symbols).
  public var hasSymbols: Bool
  /// The blocks, sorted by descriptor address (section and offset in relocatable objects).
  public var blocks: [ScannedBlock]
  /// Recoverable problems, in the order found: at most ``warningLimit``, then (when more were
  /// found) one that says how many were left out.
  public var warnings: [BinaryScanWarning]
  /// The number of section bytes scanned (for throughput figures).
  public var scannedByteCount: Int

  /// The most warnings a report lists one by one. A damaged or hostile file can hold millions
  /// of bad relocations or descriptors; past this many, warnings are only counted.
  ///
  ///     report.warnings.count <= BinaryScanReport.warningLimit + 1  // always
  public static let warningLimit = ScanWarnings.limit

  /// The number of global literals over all blocks.
  public var globalLiteralCount: Int { blocks.reduce(0) { $0 + $1.literals.count } }
  /// The number of distinct non-nil signatures.
  public var distinctSignatureCount: Int { Set(blocks.compactMap(\.signature)).count }
}
