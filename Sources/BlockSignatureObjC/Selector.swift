import CBlockSignatureObjC

/// An Objective-C selector registered with the runtime (`sel_registerName`): a method's name.
///
///     let selector: Selector = "rangeOfString:"
///     selector.argumentCount  // 1
public struct Selector: Hashable, @unchecked Sendable, CustomStringConvertible, ExpressibleByStringLiteral {
  /// The name, such as `parser:didStartElement:namespaceURI:qualifiedName:attributes:`.
  public let name: String
  /// The runtime's selector (`SEL`).
  public let pointer: UnsafeRawPointer

  /// Registers `name` with the runtime (or finds it).
  public init(_ name: String) {
    self.name = name
    pointer = cbo_sel_register_name(name)
  }

  /// Registers a selector written as a literal.
  public init(stringLiteral name: String) {
    self.init(name)
  }

  /// The selector a `SEL` names.
  public init(_ pointer: UnsafeRawPointer) {
    self.pointer = pointer
    name = String(cString: cbo_sel_get_name(pointer))
  }

  /// The number of explicit arguments the name announces (one per colon).
  public var argumentCount: Int { name.utf8.reduce(0) { $0 + ($1 == UInt8(ascii: ":") ? 1 : 0) } }

  /// The name.
  public var description: String { name }

  /// Selectors are equal when their names are (GCC's runtime may hold several `SEL`s of one
  /// name, typed and untyped).
  public static func == (lhs: Selector, rhs: Selector) -> Bool { lhs.name == rhs.name }

  /// Hashes the name.
  public func hash(into hasher: inout Hasher) { hasher.combine(name) }
}
