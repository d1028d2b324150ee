import CBlockSignatureObjC

/// The process's block classes made Objective-C classes on GCC's runtime, as Apple's runtime
/// and libobjc2 make them: a block then answers `copy`, `retain`, `release`, `autorelease`,
/// `respondsToSelector:`, `isKindOfClass:` and `description` like any object, and GNUstep's
/// `NSBlockOperation` (which sends its block `copy`) works.
///
///     let classes = try ObjCRuntime.installBlockClasses()
///     classes.runtimeLibrary  // ".../usr/lib/swift/linux/libBlocksRuntime.so"
///     classes.classes.map(\.name)  // ["NSBlock", "__NSStackBlock__", "__NSMallocBlock__", …]
///
/// ``ObjCRuntime/loadFoundation()`` installs them when it finds or loads GNUstep Base, so every
/// API of this module that needs Foundation has them; ``ObjCRuntime/installBlockClasses()`` does
/// it on request and says where.
///
/// A libclosure blocks runtime (the Swift toolchain's `libBlocksRuntime.so`, Debian's
/// `libblocksruntime`) keeps each block class — `_NSConcreteStackBlock`,
/// `_NSConcreteMallocBlock`, `_NSConcreteGlobalBlock`, `_NSConcreteAutoBlock`,
/// `_NSConcreteFinalizingBlock`, `_NSConcreteWeakBlockVariable` — as 32 words of storage for an
/// Objective-C runtime to lay a class in; GCC's runtime never does. The classes laid there are
/// `__NSStackBlock__`, `__NSMallocBlock__`, `__NSGlobalBlock__`, `__NSAutoBlock__` and
/// `__NSFinalizingBlock__` under `NSBlock` (a subclass of `NSObject`), and
/// `__NSBlockVariable__` under `NSObject`. `NSBlock`'s methods follow the block's flags: `copy`
/// is `_Block_copy`; a heap block is retained with `_Block_copy`, released with
/// `_Block_release` and autoreleased into the pool; a stack or global block is returned by
/// `retain` and `autorelease`, ignored by `release`, and counts 1.
public struct ObjCBlockClasses: Hashable, Sendable {
  /// The library that holds the block classes: the blocks runtime the process uses.
  public var runtimeLibrary: String
  /// Whether a heap copy of a block retains the objects it captures and releases them when it
  /// is freed, as on Apple's platforms: true when the runtime lets the hook be set
  /// (`_Block_use_RR2`, which the toolchain's runtime has), false when it does not (Debian's),
  /// nil when other code in the process (a library built by `Scripts/build-block-classes.sh`)
  /// installed the classes first.
  public var retainsCapturedObjects: Bool?
  /// `NSBlock`, then each class laid into the runtime's storage.
  public var classes: [ObjCClass]
}

extension ObjCRuntime {
  /// Lays the Objective-C block classes into the storage of the blocks runtime this process
  /// uses, loading GNUstep Base first when needed (`NSBlock` is a subclass of `NSObject`).
  /// Later calls find them in place and return at once.
  ///
  ///     let classes = try ObjCRuntime.installBlockClasses()
  ///     classes.retainsCapturedObjects  // true with the toolchain's libBlocksRuntime
  ///
  /// Install them before Objective-C code copies blocks that capture objects: a copy made
  /// earlier did not retain its objects, and its release would then release them.
  ///
  /// - Returns: Where the classes lie, and which they are.
  /// - Throws: ``ObjCError/Kind/foundationUnavailable`` when GNUstep Base cannot be loaded;
  ///   ``ObjCError/Kind/refused`` when the process has no libclosure blocks runtime, uses
  ///   block classes with too little storage (GNUstep Base's private runtime resolved first)
  ///   or from two runtimes, or has another class of one of the names.
  @discardableResult
  public static func installBlockClasses() throws(ObjCError) -> ObjCBlockClasses {
    try loadFoundation()
    return try layBlockClasses()
  }

  /// ``layBlockClasses()`` as a result, for ``loadFoundation()``.
  static func blockClassesLaid() -> Result<Void, ObjCError> {
    do {
      _ = try layBlockClasses()
      return .success(())
    } catch {
      return .failure(error)
    }
  }

  /// Lays the classes, GNUstep Base being loaded.
  static func layBlockClasses() throws(ObjCError) -> ObjCBlockClasses {
    var report = CBO_BlockClassesReport()
    let status = cbo_install_block_classes(&report)
    let message = withUnsafeBytes(of: &report.message) { bytes in
      String(decoding: bytes.prefix { $0 != 0 }, as: UTF8.self)
    }
    guard status == Int32(CBO_BLOCK_CLASSES_INSTALLED.rawValue) else {
      let kind: ObjCError.Kind =
        status == Int32(CBO_BLOCK_CLASSES_NO_FOUNDATION.rawValue) ? .foundationUnavailable : .refused
      throw ObjCError(kind: kind, message: "The block classes cannot be Objective-C classes: \(message)")
    }
    let names = [
      "NSBlock", "__NSStackBlock__", "__NSMallocBlock__", "__NSGlobalBlock__", "__NSAutoBlock__",
      "__NSFinalizingBlock__", "__NSBlockVariable__",
    ]
    return ObjCBlockClasses(
      runtimeLibrary: report.runtimeLibrary.map { String(cString: $0) } ?? "",
      retainsCapturedObjects: report.retainsCapturedObjects < 0 ? nil : report.retainsCapturedObjects == 1,
      classes: names.compactMap { name in cbo_class_named(name).map { ObjCClass($0) } })
  }
}
