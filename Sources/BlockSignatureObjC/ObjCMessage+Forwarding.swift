// What the runtime does with a message the receiver's class has no method for, done before the
// call: the exception GNUstep's forwarding raises cannot unwind out of a libffi call (it
// reaches GNUstep's uncaught-exception handler), so it is raised here, inside `@try`.

import CBlockSignatureObjC
import Synchronization

extension ObjCMessage {
  /// The object that answers `selector` for `receiver`: the receiver when its class has a
  /// method, else its `forwardingTargetForSelector:` answer. When nothing answers and the
  /// class forwards no invocations, the receiver's `doesNotRecognizeSelector:` raises as the
  /// runtime's forwarding would, and its exception comes back as an error.
  ///
  /// - Throws: ``ObjCError/Kind/unknownSelector`` with the exception `doesNotRecognizeSelector:`
  ///   raised (GNUstep's `NSInvalidArgumentException`), or ``ObjCError/Kind/exception`` when
  ///   `forwardingTargetForSelector:` raises.
  func answeringReceiver(_ receiver: UnsafeRawPointer) throws(ObjCError) -> UnsafeRawPointer {
    // The class that answered last time answers again (methods are added, never taken away).
    let receiverClass = UInt(bitPattern: cbo_object_get_class(receiver))
    if receiverClass == answeringClass.load(ordering: .relaxed) { return receiver }
    if ObjCClass(of: receiver).instancesRespond(to: selector) {
      answeringClass.store(receiverClass, ordering: .relaxed)
      return receiver
    }
    var current = receiver
    for _ in 0..<8 {
      let objcClass = ObjCClass(of: current)
      if objcClass.instancesRespond(to: selector) { return current }
      if objcClass.instancesRespond(to: "forwardingTargetForSelector:"),
        let target = try ObjCMessages.sendObject(current, "forwardingTargetForSelector:", selector.pointer),
        target != current
      {
        current = target
        continue
      }
      guard Self.forwardsNoInvocations(objcClass) else { return current }
      try refuse(current, objcClass)
      return current  // a doesNotRecognizeSelector: that returns: the runtime's forwarding decides
    }
    return current
  }

  /// Sends `doesNotRecognizeSelector:` to `receiver`, and reports the exception it raises as the
  /// unknown selector it is.
  private func refuse(_ receiver: UnsafeRawPointer, _ objcClass: ObjCClass) throws(ObjCError) {
    do {
      try ObjCMessages.sendObject(receiver, "doesNotRecognizeSelector:", selector.pointer)
    } catch {
      let sign = objcClass.isMetaclass ? "+" : "-"
      throw ObjCError(
        kind: .unknownSelector,
        message: "\(sign)[\(objcClass.name) \(selector)]: no method answers it, and nothing it forwards to does"
          + (error.exceptionName.map { " (\($0)\(error.exceptionReason.map { ": \($0)" } ?? ""))" } ?? ""),
        exceptionName: error.exceptionName, exceptionReason: error.exceptionReason)
    }
  }

  /// Whether instances of `objcClass` use `NSObject`'s `forwardInvocation:` (which forwards
  /// only to `forwardingTargetForSelector:`'s answer, and refuses every other invocation):
  /// `NSObject`'s subclasses that keep it, and the dynamic delegates, which take it over.
  private static func forwardsNoInvocations(_ objcClass: ObjCClass) -> Bool {
    guard let root = try? ObjCClass(named: "NSObject") else { return false }
    let selector: Selector = "forwardInvocation:"
    let isObject = objcClass.isSubclass(of: root) || objcClass == root.metaclass
    guard let own = objcClass.instanceMethod(selector) else { return isObject }
    let inherited = objcClass.isMetaclass ? root.metaclass.instanceMethod(selector) : root.instanceMethod(selector)
    return own.implementation == inherited?.implementation
  }
}

extension ObjCClass {
  /// Whether `ancestor` is this class or one of its superclasses.
  public func isSubclass(of ancestor: ObjCClass) -> Bool {
    var current: ObjCClass? = self
    while let objcClass = current {
      if objcClass == ancestor { return true }
      current = objcClass.superclass
    }
    return false
  }
}
