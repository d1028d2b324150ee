import BlockSignature
import BlockSignatureBinary
import BlockSignatureSystem
import CBlockSignatureShims

/// A blocks runtime loaded in this process: the image that defines `_Block_copy`.
///
/// Two runtimes exist on Linux: Debian's `libBlocksRuntime.so.0` (compiler-rt lineage, no
/// signature queries, reference count in units of 1) and the Swift toolchain's
/// `libBlocksRuntime.so` (libdispatch's copy of libclosure: `_Block_signature` and friends,
/// reference count in units of 2). A process should load exactly one.
///
///     if let runtime = BlocksRuntime.current {
///       print(runtime.path, runtime.referenceCountConvention)
///     }
public struct BlocksRuntime: Hashable, Sendable, Codable {
  /// How a runtime stores a heap block's reference count in the flags word.
  public enum ReferenceCountConvention: String, Hashable, Sendable, Codable, CustomStringConvertible {
    /// libclosure (Apple, the Swift toolchain): bits 1–15, one reference = 2.
    case unitsOfTwo
    /// compiler-rt (Debian's libblocksruntime): bits 0–15, one reference = 1.
    case unitsOfOne

    /// The mask of the count bits in the flags word.
    public var mask: Int32 { self == .unitsOfTwo ? 0xfffe : 0xffff }

    /// Where the count sits, in words: `bits 1–15, units of 2` or `bits 0–15, units of 1`.
    public var description: String { self == .unitsOfTwo ? "bits 1–15, units of 2" : "bits 0–15, units of 1" }

    /// The number of references a flags word records.
    public func referenceCount(flags: BlockFlags) -> Int {
      let bits = Int(flags.rawValue & mask)
      return self == .unitsOfTwo ? bits >> 1 : bits
    }
  }

  /// The path of the image that defines `_Block_copy`, as the dynamic linker names it.
  public var path: String
  /// Whether the runtime exports `_Block_signature` (libclosure lineage).
  public var exportsSignatureQueries: Bool
  /// How the runtime counts references.
  public var referenceCountConvention: ReferenceCountConvention

  /// The runtime that `_Block_copy` resolves to in the global scope, or nil if none is loaded.
  public static var current: BlocksRuntime? { resolvedAtFirstUse ?? resolveCurrent() }

  /// The global scope's `_Block_copy` is its first definition in load order, which a later
  /// load cannot change: once found, it is kept.
  private static let resolvedAtFirstUse = resolveCurrent()

  private static func resolveCurrent() -> BlocksRuntime? {
    guard let handle = system_dlopen(nil, onlyIfLoaded: true) else { return nil }
    defer { system_dlclose(handle) }
    guard let copy = system_dlsym(handle, "_Block_copy") else { return nil }
    return runtime(definingSymbolAt: UInt(bitPattern: copy))
  }

  /// Every loaded image that itself defines `_Block_copy`, in load order. More than one
  /// means two runtimes in one process.
  public static var loaded: [BlocksRuntime] {
    var found: [BlocksRuntime] = []
    for path in loadedImagePaths() {
      guard let handle = system_dlopen(path, onlyIfLoaded: true) else { continue }
      defer { system_dlclose(handle) }
      guard let copy = system_dlsym(handle, "_Block_copy") else { continue }
      // dlsym searches dependencies too: keep only the image that defines the symbol.
      guard let runtime = runtime(definingSymbolAt: UInt(bitPattern: copy)) else { continue }
      if sameImage(runtime.path, path) && !found.contains(runtime) { found.append(runtime) }
    }
    return found
  }

  /// The blocks runtimes mapped into process `pid`, read from its image files (see
  /// ``BlockInfo/init(inspecting:inProcess:)``): the image that contains `address` (give a
  /// block's `isa`: a runtime class lives in its runtime, even one linked into the executable)
  /// first, then the images named like a runtime (`libBlocksRuntime…`), those that define
  /// `_Block_copy`.
  ///
  ///     BlocksRuntime.loaded(inProcess: 4242, containing: info.isa).first?.path
  ///     // "/usr/lib/swift/linux/libBlocksRuntime.so"
  public static func loaded(inProcess pid: Int32, containing address: UInt = 0) -> [BlocksRuntime] {
    ProcessImages(pid: pid).loadedRuntimes(preferring: address)
  }

  /// The signature the runtime itself reports for a block (`_Block_signature`), or nil when
  /// the runtime does not export that query or the block has none.
  ///
  /// - Precondition: `block` points to a live block.
  public func signature(ofBlockAt block: UnsafeRawPointer) -> String? {
    guard let handle = system_dlopen(path, onlyIfLoaded: true) else { return nil }
    defer { system_dlclose(handle) }
    guard let symbol = system_dlsym(handle, "_Block_signature") else { return nil }
    typealias Query = @convention(c) (UnsafeRawPointer) -> UnsafePointer<CChar>?
    let query = unsafeBitCast(symbol, to: Query.self)
    return query(block).map { String(cString: $0) }
  }

  static func runtime(definingSymbolAt address: UInt) -> BlocksRuntime? {
    guard let info = SymbolInfo(address: address), let path = info.imagePath else { return nil }
    guard let handle = system_dlopen(path, onlyIfLoaded: true) else { return nil }
    defer { system_dlclose(handle) }
    let exports = system_dlsym(handle, "_Block_signature").flatMap { SymbolInfo(address: UInt(bitPattern: $0)) }
    let ownsQueries = exports.map { sameImage($0.imagePath ?? "", path) } ?? false
    return BlocksRuntime(
      path: path,
      exportsSignatureQueries: ownsQueries,
      referenceCountConvention: ownsQueries ? .unitsOfTwo : .unitsOfOne
    )
  }

  private static func sameImage(_ a: String, _ b: String) -> Bool { system_sameFile(a, b) }

  private static func loadedImagePaths() -> [String] {
    #if os(Linux)
      final class Box { var paths: [String] = [] }
      let box = Box()
      withExtendedLifetime(box) {
        _ = cbs_each_image(
          { path, _, context in
            guard let context else { return 0 }
            Unmanaged<Box>.fromOpaque(context).takeUnretainedValue().paths.append(String(cString: path))
            return 0
          }, Unmanaged.passUnretained(box).toOpaque())
      }
      return box.paths
    #else
      return []
    #endif
  }
}
