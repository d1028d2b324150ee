import BlockSignatureFFI
import BlockSignatureSystem
import CBlockSignatureObjC

/// GCC's Objective-C runtime in this process, and GNUstep Base (the Foundation classes) on it.
///
///     try ObjCRuntime.loadFoundation()
///     try ObjCRuntime.withAutoreleasePool {
///       let text = try ObjCObject(string: "héllo")
///       print(try text.send("length"))  // 5
///     }
///
/// The runtime itself (`libobjc.so.4`) is linked; GNUstep Base is loaded on first need by
/// ``loadFoundation()`` when no library in the process brought it.
public enum ObjCRuntime {
  /// The files ``loadFoundation()`` tries, in order: the development link, then Debian's
  /// versioned names.
  public static let foundationLibraryNames = [
    "libgnustep-base.so", "libgnustep-base.so.1.30", "libgnustep-base.so.1.29", "libgnustep-base.so.1.28",
  ]

  private static let foundationLoad = Locked<Result<Void, ObjCError>?>(nil)

  /// Makes sure GNUstep Base's classes are in the runtime, loading the library
  /// (`dlopen`, `RTLD_GLOBAL`) when they are not, and that blocks are Objective-C objects
  /// (``installBlockClasses()``). Later calls return at once.
  ///
  /// - Throws: ``ObjCError/Kind/foundationUnavailable`` naming the files tried;
  ///   ``ObjCError/Kind/refused`` when the block classes cannot be laid.
  public static func loadFoundation() throws(ObjCError) {
    let result = foundationLoad.withLock { state -> Result<Void, ObjCError> in
      if let state { return state }
      let loaded = findOrLoadFoundation().flatMap { blockClassesLaid() }
      if case .success = loaded { keepThreadsFromEndingTheProcess() }
      state = loaded
      return loaded
    }
    try result.get()
  }

  /// Keeps a GNUstep thread that ends from ending the process. GNUstep takes for its main
  /// `NSThread` the first one that asks for the current thread on the process's main thread;
  /// in a program that loads GNUstep from another thread none may ever ask, and then a GNUstep
  /// thread that ends (an `NSOperationQueue` worker going idle) runs `+[NSThread exit]`,
  /// which takes it for the main thread and calls `exit(0)`. The replacement ends such a
  /// thread with `pthread_exit` (GNUstep's thread-key destructor then unregisters it, as for
  /// any thread that ends without `+exit`) and leaves every other case to GNUstep's method.
  private static func keepThreadsFromEndingTheProcess() {
    guard let nsThread = cbo_class_named("NSThread"), let metaclass = cbo_object_get_class(nsThread) else { return }
    let exitSelector = cbo_sel_register_name("exit")
    let replacement: @convention(c) (UnsafeRawPointer, UnsafeRawPointer) -> Void = { receiver, selector in
      if !system_isMainThread() && ObjCRuntime.gnustepMainThread() == nil { system_exitThread() }
      guard let original = ObjCRuntime.originalThreadExit.withLock({ $0 }) else { return }
      typealias Exit = @convention(c) (UnsafeRawPointer, UnsafeRawPointer) -> Void
      unsafeBitCast(original, to: Exit.self)(receiver, selector)
    }
    originalThreadExit.withLock { original in
      guard original == nil else { return }
      original = cbo_class_replace_method(
        metaclass, exitSelector, unsafeBitCast(replacement, to: UnsafeRawPointer.self), "v16@0:8")
    }
  }

  /// GNUstep's `+[NSThread exit]`, which ``keepThreadsFromEndingTheProcess()`` replaced.
  private static let originalThreadExit = Locked<UnsafeRawPointer?>(nil)

  /// `+[NSThread mainThread]`: nil until GNUstep has seen the process's main thread.
  private static func gnustepMainThread() -> UnsafeRawPointer? {
    guard let nsThread = cbo_class_named("NSThread") else { return nil }
    typealias Getter = @convention(c) (UnsafeRawPointer, UnsafeRawPointer) -> UnsafeRawPointer?
    let selector = cbo_sel_register_name("mainThread")
    return unsafeBitCast(cbo_msg_lookup(nsThread, selector), to: Getter.self)(nsThread, selector)
  }

  private static func findOrLoadFoundation() -> Result<Void, ObjCError> {
    if cbo_class_named("NSAutoreleasePool") != nil { return .success(()) }
    var reasons: [String] = []
    for name in foundationLibraryNames {
      if system_dlopen(name, global: true) != nil, cbo_class_named("NSAutoreleasePool") != nil {
        return .success(())
      }
      reasons.append(system_dlerror() ?? "\(name): no NSAutoreleasePool class")
    }
    return .failure(
      ObjCError(
        kind: .foundationUnavailable,
        message:
          "GNUstep Base could not be loaded (apt-get install libgnustep-base-dev): \(reasons.joined(separator: "; "))"))
  }

  /// Runs `body` inside an `NSAutoreleasePool`, drained when `body` returns or throws: GNUstep
  /// autoreleases many of the objects its methods return.
  ///
  /// Without it nothing is lost: the first time this module sends a message on a thread, it
  /// puts a pool at the bottom of the thread's pools when there is none (GNUstep would
  /// otherwise log "autorelease called without pool" and leak the object). That pool is never
  /// drained, so what is autoreleased into it lives as long as the thread: wrap work in this
  /// function to free it sooner.
  ///
  ///     try ObjCRuntime.withAutoreleasePool {
  ///       let data = try ObjCObject(string: "<a/>").sendForObject("dataUsingEncoding:", .unsigned(4))
  ///     }
  ///
  /// - Parameter body: The work to do inside the pool.
  /// - Returns: What `body` returns.
  /// - Throws: ``ObjCError/Kind/foundationUnavailable``, or what `body` throws.
  public static func withAutoreleasePool<Result, Failure: Error>(
    _ body: () throws(Failure) -> Result
  ) throws -> Result {
    try loadFoundation()
    let poolClass = try ObjCClass(named: "NSAutoreleasePool")
    let pool = try ObjCMessages.sendObject(poolClass.pointer, "new")
    defer { _ = try? ObjCMessages.sendObject(pool, "drain") }
    return try body()
  }
}

/// Messages without arguments that return an object or a C string, sent inside `@try`: what
/// the layer itself needs (retain, release, describing an exception, `UTF8String`).
enum ObjCMessages {
  /// Sends `selector` to `receiver`, with `argument` when it takes one (an object or a
  /// selector), and returns its object (or C string) result.
  ///
  /// - Throws: ``ObjCError/Kind/exception`` when it raises.
  @discardableResult
  static func sendObject(
    _ receiver: UnsafeRawPointer?, _ selector: Selector, _ argument: UnsafeRawPointer? = nil
  ) throws(ObjCError) -> UnsafeRawPointer? {
    cbo_autorelease_pool_ensure()
    var raised: UnsafeRawPointer? = nil
    let result = cbo_send_catching(receiver, selector.pointer, argument, &raised)
    if let raised { throw ObjCExceptions.error(for: raised, while: "sending \(selector)") }
    return result
  }

  /// The C string an object's `selector` returns (`UTF8String`, `name`…), nil when it
  /// raises or returns NULL.
  static func string(of object: UnsafeRawPointer?, _ selector: Selector) -> String? {
    guard let object, let text = try? sendObject(object, selector) else { return nil }
    guard cbo_class_responds_to_selector(cbo_object_get_class(text)!, Selector("UTF8String").pointer) != 0,
      let utf8 = try? sendObject(text, "UTF8String")
    else { return nil }
    return String(cString: utf8.assumingMemoryBound(to: CChar.self))
  }
}

/// Objective-C exceptions caught at the boundary and turned into Swift errors.
enum ObjCExceptions {
  /// The typed error for `exception`, raised while doing `what`: its name and reason when it
  /// is an `NSException`, its class otherwise.
  static func error(for exception: UnsafeRawPointer, while what: String) -> ObjCError {
    let exceptionClass = ObjCClass(of: exception)
    let isNSException =
      exceptionClass.instancesRespond(to: "name") && exceptionClass.instancesRespond(to: "reason")
    let name = isNSException ? ObjCMessages.string(of: exception, "name") : nil
    let reason = isNSException ? ObjCMessages.string(of: exception, "reason") : nil
    let named = name ?? exceptionClass.name
    return ObjCError(
      kind: .exception, message: "\(what) raised \(named)\(reason.map { ": \($0)" } ?? "")",
      exceptionName: named, exceptionReason: reason)
  }

  /// Makes the libffi call inside `@try`: returns the exception raised, or nil.
  static func call(
    _ cif: UnsafeMutableRawPointer, _ function: UnsafeRawPointer, _ result: UnsafeMutableRawPointer?,
    _ arguments: UnsafeMutablePointer<UnsafeMutableRawPointer?>?
  ) -> UnsafeRawPointer? {
    cbo_call_catching(cif, function, result, arguments)
  }
}

/// The runtime calls made on every message.
enum ObjCRuntimeCalls {
  /// The implementation that answers `selector` for `receiver` (`objc_msg_lookup`).
  static func lookup(_ receiver: UnsafeRawPointer, _ selector: Selector) -> UnsafeRawPointer {
    cbo_msg_lookup(receiver, selector.pointer)
  }
}
