// What a delegate's class answers besides the protocol's methods. The class is a subclass of
// GNUstep's NSProxy, not of NSObject: GNUstep's NSObject implements whole delegate protocols in
// categories (NSXMLParserDelegateEventAdditions and others), and a subclass would inherit an
// empty answer for every method that has no block, hiding the real delegate's. Those empty
// defaults still run for a message nothing else answers, as GNUstep's classes expect.

import BlockSignature
import BlockSignatureFFI
import BlockSignatureSystem
import CBlockSignatureObjC

extension DelegateClass {
  /// The methods outside the protocol that the delegate answers itself, and for which
  /// `respondsToSelector:` is true whatever the blocks and the real delegate: the `NSObject`
  /// protocol (NSProxy implements it), of which GNUstep Base's delegating classes send
  /// `respondsToSelector:`, `retain`, `release`, `autorelease` and
  /// `performSelector:withObject:withObject:`; `methodForSelector:`, which `NSXMLParser` sends
  /// to look each event's method up once; and the runtime's forwarding methods.
  static let objectSelectors: Set<Selector> = [
    "class", "superclass", "self", "isEqual:", "hash", "description", "isProxy", "isKindOfClass:",
    "isMemberOfClass:", "conformsToProtocol:", "respondsToSelector:", "retain", "release", "autorelease",
    "retainCount", "zone", "performSelector:", "performSelector:withObject:",
    "performSelector:withObject:withObject:", "methodForSelector:", "methodSignatureForSelector:",
    "forwardInvocation:", "forwardingTargetForSelector:", "doesNotRecognizeSelector:",
  ]

  /// The plain `NSObject` that answers, with GNUstep's defaults, what nothing else answers.
  static let defaults: ObjCObject? = try? ObjCClass(named: "NSObject").makeInstance()

  /// Adds the methods the delegate answers per instance (`respondsToSelector:`,
  /// `forwardingTargetForSelector:`, `methodSignatureForSelector:`, `conformsToProtocol:`,
  /// `init`, `dealloc`) and those NSProxy lacks or forwards, taken from `NSObject`
  /// (`methodForSelector:`, `forwardInvocation:`, `doesNotRecognizeSelector:`,
  /// `isKindOfClass:`, `isMemberOfClass:`): a message nothing answers raises
  /// `doesNotRecognizeSelector:`, as it does for an `NSObject`.
  func addObjectMethods() throws(ObjCError) {
    let object = try ObjCClass(named: "NSObject")
    var added: [(Selector, UnsafeRawPointer)] = Self.ownObjectMethods
    for selector: Selector in [
      "methodForSelector:", "forwardInvocation:", "doesNotRecognizeSelector:", "isKindOfClass:", "isMemberOfClass:",
    ] {
      guard let method = object.instanceMethod(selector) else {
        throw ObjCError(kind: .unknownSelector, message: "\(object) has no \(selector)")
      }
      added.append((selector, method.implementation))
    }
    for (selector, implementation) in added {
      guard let types = object.instanceMethod(selector)?.typeEncoding else {
        throw ObjCError(kind: .unknownSelector, message: "\(object) has no \(selector)")
      }
      guard cbo_class_add_method(objcClass.pointer, selector.pointer, implementation, types) != 0 else {
        throw ObjCError(kind: .refused, message: "\(objcClass) refused \(selector)")
      }
    }
  }

  /// The implementations written here, by selector.
  private static var ownObjectMethods: [(Selector, UnsafeRawPointer)] {
    let responds: @convention(c) (UnsafeRawPointer?, UnsafeRawPointer?, UnsafeRawPointer?) -> UInt8 = {
      object, _, selector in
      guard let object, let selector else { return 0 }
      return DelegateState.of(object)?.responds(to: Selector(selector)) == true ? 1 : 0
    }
    let forwarding: @convention(c) (UnsafeRawPointer?, UnsafeRawPointer?, UnsafeRawPointer?) -> UnsafeRawPointer? = {
      object, _, selector in
      guard let object, let selector else { return nil }
      return DelegateState.of(object)?.forwardingTarget(for: Selector(selector))
    }
    let signature: @convention(c) (UnsafeRawPointer?, UnsafeRawPointer?, UnsafeRawPointer?) -> UnsafeRawPointer? = {
      object, _, selector in
      guard let object, let selector else { return nil }
      return DelegateState.of(object)?.methodSignature(for: Selector(selector), object: object)
    }
    let conforms: @convention(c) (UnsafeRawPointer?, UnsafeRawPointer?, UnsafeRawPointer?) -> UInt8 = {
      object, _, protocolPointer in
      guard let object, let protocolPointer else { return 0 }
      if cbo_class_conforms_to_protocol(ObjCClass(of: object).pointer, protocolPointer) != 0 { return 1 }
      guard let real = DelegateState.of(object)?.realDelegate else { return 0 }
      return DelegateState.answersYes(real.pointer, "conformsToProtocol:", protocolPointer) ? 1 : 0
    }
    // NSProxy's init raises, asking subclasses for their own: there is nothing to set up.
    let initializer: @convention(c) (UnsafeRawPointer?, UnsafeRawPointer?) -> UnsafeRawPointer? = { object, _ in
      object
    }
    let dealloc: @convention(c) (UnsafeRawPointer?, UnsafeRawPointer?) -> Void = { object, selector in
      guard let object, let selector else { return }
      DelegateState.detach(from: object)
      let superclass = ObjCClass(of: object).superclass!
      let inherited = unsafeBitCast(
        cbo_method_get_implementation(superclass.instanceMethod("dealloc")!.pointer),
        to: (@convention(c) (UnsafeRawPointer, UnsafeRawPointer) -> Void).self)
      inherited(object, selector)
    }
    return [
      ("respondsToSelector:", unsafeBitCast(responds, to: UnsafeRawPointer.self)),
      ("forwardingTargetForSelector:", unsafeBitCast(forwarding, to: UnsafeRawPointer.self)),
      ("methodSignatureForSelector:", unsafeBitCast(signature, to: UnsafeRawPointer.self)),
      ("conformsToProtocol:", unsafeBitCast(conforms, to: UnsafeRawPointer.self)),
      ("init", unsafeBitCast(initializer, to: UnsafeRawPointer.self)),
      ("dealloc", unsafeBitCast(dealloc, to: UnsafeRawPointer.self)),
    ]
  }
}

extension DelegateState {
  /// Whether the delegate answers `selector`: a protocol method with a block, or one the real
  /// delegate answers; one of ``DelegateClass/objectSelectors``; any other selector the real
  /// delegate answers.
  func responds(to selector: Selector) -> Bool {
    if let position = delegateClass.index[selector.name] {
      if implementations.withLock({ $0[position] != nil }) { return true }
    } else if DelegateClass.objectSelectors.contains(selector) {
      return true
    }
    return realDelegateResponds(to: selector)
  }

  /// Whether the real delegate answers `selector` (asked with `respondsToSelector:`, so a real
  /// delegate that forwards answers for what it forwards).
  func realDelegateResponds(to selector: Selector) -> Bool {
    guard let realDelegate else { return false }
    return Self.answersYes(realDelegate.pointer, "respondsToSelector:", selector.pointer)
  }

  /// Where a message the delegate's class has no method for goes: the real delegate when it
  /// answers; else a plain `NSObject` when GNUstep's `NSObject` has a default for it (the empty
  /// methods of its delegate categories, which GNUstep's classes send without asking
  /// `respondsToSelector:` first: the libxml2 `NSXMLParser` sends every event); else nowhere
  /// (nil: `doesNotRecognizeSelector:` raises).
  func forwardingTarget(for selector: Selector) -> UnsafeRawPointer? {
    if let realDelegate, realDelegateResponds(to: selector) { return realDelegate.pointer }
    guard !DelegateClass.objectSelectors.contains(selector), let defaults = DelegateClass.defaults,
      defaults.objectClass.instancesRespond(to: selector)
    else { return nil }
    return defaults.pointer
  }

  /// The `NSMethodSignature` GNUstep's forwarding builds its invocation from: the types of the
  /// delegate's own method, else the real delegate's answer, else nil (GNUstep then raises).
  func methodSignature(for selector: Selector, object: UnsafeRawPointer) -> UnsafeRawPointer? {
    if let method = ObjCClass(of: object).instanceMethod(selector) {
      guard let signatureClass = try? ObjCClass(named: "NSMethodSignature") else { return nil }
      return method.typeEncoding.withCString { types in
        try? ObjCMessages.sendObject(signatureClass.pointer, "signatureWithObjCTypes:", UnsafeRawPointer(types))
      } ?? nil
    }
    guard let target = forwardingTarget(for: selector) else { return nil }
    return (try? ObjCMessages.sendObject(target, "methodSignatureForSelector:", selector.pointer)) ?? nil
  }

  /// Sends `selector` (a method returning `BOOL`) with one pointer argument, inside `@try`:
  /// true when it answers YES; false when it answers NO or raises.
  static func answersYes(_ receiver: UnsafeRawPointer, _ selector: Selector, _ argument: UnsafeRawPointer) -> Bool {
    guard let answer = try? ObjCMessages.sendObject(receiver, selector, argument) else { return false }
    // A BOOL is one byte: the rest of the register is undefined.
    return UInt(bitPattern: answer) & 0xff != 0
  }
}
