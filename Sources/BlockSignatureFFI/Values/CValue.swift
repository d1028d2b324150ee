import BlockSignature

/// A C value as a block takes or returns it: what ``BlockInvocation`` converts to and from the
/// bytes of each argument, checked against the argument's type encoding.
///
///     let invocation = try BlockInvocation(block: pointer)  // ^(int, double) → long long
///     try invocation.invoke([.signed(7), .double(0.5)])    // .signed(…)
///
/// Integers of any width (128-bit included) are ``signed(_:)`` or ``unsigned(_:)``; either is
/// accepted for any integer type when the value fits. Floating-point types accept integers and
/// the other widths (converted as C converts them). A structure is an ``aggregate(_:)`` of its
/// members in order, an array member a nested ``aggregate(_:)`` of its elements; a union is
/// ``union(member:value:)`` with the index of the member that holds the value.
public enum CValue: Hashable, Sendable {
  /// No value: the result of a `void` block.
  case void
  /// A signed integer or enum of any width.
  case signed(Int128)
  /// An unsigned integer of any width.
  case unsigned(UInt128)
  /// A `_Bool`.
  case bool(Bool)
  /// A `float`.
  case float(Float)
  /// A `double`.
  case double(Double)
  #if arch(x86_64) || arch(i386)
    /// A `long double` (80-bit x87 on x86).
    case longDouble(Float80)
  #endif
  /// A `_Complex` value: its real and imaginary parts, each of the element type.
  indirect case complex(real: CValue, imaginary: CValue)
  /// Any pointer, object, selector, class or block, as an address (0 is NULL).
  case pointer(UInt)
  /// A `char *`: a string passed as a NUL-terminated copy that lives for the call, or NULL.
  /// A returned `char *` whose memory cannot be read comes back as ``pointer(_:)``.
  case string(String?)
  /// A structure's members (or an array's elements) in order.
  case aggregate([CValue])
  /// A union: the index of the member that holds `value`.
  indirect case union(member: Int, value: CValue)

  /// A short name of the value's kind, for messages ("integer", "string", "aggregate", …).
  var kindName: String {
    switch self {
    case .void: "void"
    case .signed, .unsigned: "integer"
    case .bool: "boolean"
    case .float, .double: "floating-point number"
    #if arch(x86_64) || arch(i386)
      case .longDouble: "floating-point number"
    #endif
    case .complex: "complex number"
    case .pointer: "pointer"
    case .string: "string"
    case .aggregate: "aggregate"
    case .union: "union value"
    }
  }
}

extension CValue: CustomStringConvertible {
  /// The value in the syntax of `blocksig call`: `42`, `1.5`, `[1, 2]`, `{member 1: 3}`, `"text"`.
  public var description: String {
    switch self {
    case .void: "void"
    case .signed(let value): String(value)
    case .unsigned(let value): String(value)
    case .bool(let value): String(value)
    case .float(let value): String(describing: value)
    case .double(let value): String(describing: value)
    #if arch(x86_64) || arch(i386)
      case .longDouble(let value): String(describing: value)
    #endif
    case .complex(let real, let imaginary): "[\(real), \(imaginary)]"
    case .pointer(let address): address == 0 ? "NULL" : address.hexadecimal()
    case .string(let text?): "\"\(text)\""
    case .string(nil): "NULL"
    case .aggregate(let members): "[" + members.map(\.description).joined(separator: ", ") + "]"
    case .union(let member, let value): "{member \(member): \(value)}"
    }
  }
}
