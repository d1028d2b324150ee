import BlockSignature
import BlockSignatureSystem
import CBlockSignatureObjC

/// An Objective-C protocol as GCC's runtime records it.
///
///     let copying = try ObjCProtocol(named: "NSCopying")
///     copying.methods(required: true, instance: true).map(\.selector)  // [copyWithZone:]
///
/// GCC records types for `@required` methods only, and a protocol exists in the runtime only
/// once compiled code references it (`@protocol(Name)`). GNUstep's delegate protocols are all
/// `@optional`: read their methods from the header (BlockSignatureHeaders) instead.
public struct ObjCProtocol: Hashable, @unchecked Sendable, CustomStringConvertible {
  /// The runtime's `Protocol *`.
  public let pointer: UnsafeRawPointer

  /// Wraps a runtime `Protocol *`.
  public init(_ pointer: UnsafeRawPointer) {
    self.pointer = pointer
  }

  /// The protocol called `name`.
  ///
  /// - Throws: ``ObjCError/Kind/unknownProtocol``.
  public init(named name: String) throws(ObjCError) {
    guard let pointer = cbo_protocol_named(name) else {
      throw ObjCError(
        kind: .unknownProtocol,
        message: "the runtime has no protocol called \(name) (GCC's records one only where compiled code uses it)")
    }
    self.pointer = pointer
  }

  /// The name.
  public var name: String { String(cString: cbo_protocol_get_name(pointer)) }

  /// The methods the runtime records with their types: `required` or optional ones, instance
  /// or class ones. A method whose types do not parse is left out.
  public func methods(required: Bool = true, instance: Bool = true) -> [ObjCMethodDescription] {
    var count: UInt32 = 0
    guard let list = cbo_protocol_copy_methods(pointer, required ? 1 : 0, instance ? 1 : 0, &count) else {
      return []
    }
    defer { system_free(list) }
    return (0..<Int(count)).compactMap { index in
      let entry = list[index]
      guard let selector = entry.selector, let types = entry.types,
        let signature = try? ObjCTypes.methodSignature(String(cString: types), what: "")
      else { return nil }
      return ObjCMethodDescription(
        selector: Selector(selector), signature: signature, isRequired: required, isInstanceMethod: instance)
    }
  }

  /// Every protocol the runtime knows.
  public static var all: [ObjCProtocol] {
    var count: UInt32 = 0
    guard let list = cbo_protocol_copy_list(&count) else { return [] }
    defer { system_free(list) }
    return (0..<Int(count)).compactMap { list[$0].map(ObjCProtocol.init) }
  }

  /// The name.
  public var description: String { name }
}

/// A method a protocol declares: its selector and types (method form, `@0:8` first), whether it
/// is required, and whether it is an instance method.
///
///     let method = ObjCMethodDescription(
///       selector: "parserDidStartDocument:", signature: try MethodSignature(parsing: "v24@0:8@16", model: .host!))
public struct ObjCMethodDescription: Hashable, Sendable, CustomStringConvertible {
  /// The selector.
  public var selector: Selector
  /// The types, in method form.
  public var signature: MethodSignature
  /// Whether the protocol requires it.
  public var isRequired: Bool
  /// Whether it is an instance method (a class method otherwise).
  public var isInstanceMethod: Bool

  /// A method description.
  public init(selector: Selector, signature: MethodSignature, isRequired: Bool = false, isInstanceMethod: Bool = true) {
    self.selector = selector
    self.signature = signature
    self.isRequired = isRequired
    self.isInstanceMethod = isInstanceMethod
  }

  /// A description from the types' text.
  ///
  /// - Throws: ``ObjCError/Kind/invalidSignature`` when `types` is not a method signature.
  public init(selector: Selector, types: String, isRequired: Bool = false, isInstanceMethod: Bool = true)
    throws(ObjCError)
  {
    let signature = try ObjCTypes.methodSignature(types, what: "the types of \(selector)")
    self.init(selector: selector, signature: signature, isRequired: isRequired, isInstanceMethod: isInstanceMethod)
  }

  /// `- selector types` (`+` for a class method).
  public var description: String { "\(isInstanceMethod ? "-" : "+") \(selector) \(signature)" }
}
