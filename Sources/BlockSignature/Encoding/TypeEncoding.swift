/// One Objective-C type encoding, as clang, GCC and the Apple runtimes write it.
///
/// A `TypeEncoding` is a lossless syntax tree: printing it with ``description`` gives back the
/// exact bytes it was parsed from.
///
///     let type = try TypeEncoding(parsing: "^{P=dic}")
///     // .pointer(.structure(name: "P", fields: [.init(type: .primitive(.double)), …]))
///     print(type)  // ^{P=dic}
///
/// The corresponding clang routine is `ASTContext::getObjCEncodingForType`.
///
/// Only the cases that hold another `TypeEncoding` directly are `indirect` (boxed): a primitive,
/// an object, a structure (its fields are an array already) or a bitfield is stored inline, so
/// parsing allocates no box for them.
public enum TypeEncoding: Hashable, Sendable {
  /// A one-byte code such as `i`, `d`, `*`, `#` or `?`.
  case primitive(TypeCode)
  /// `@`, optionally with a quoted class and protocol list: `@"NSString"`, `@"<P>"`, `@"Foo<P><Q>"`.
  ///
  /// `className` is the raw text between the quotes; `nil` means a bare `@`.
  case object(className: String?)
  /// A block pointer `@?`, optionally with its nested signature `@?<v@?i>`.
  ///
  /// `signature` holds the return type followed by the parameter types (the block itself
  /// included), as written; nested signatures never carry offsets.
  case block(signature: [TypeEncoding]?)
  /// `^T`.
  indirect case pointer(TypeEncoding)
  /// `[N T]`, for example `[4i]` or `[0C]`.
  indirect case array(count: UInt64, element: TypeEncoding)
  /// `{name=fields}`; `fields` is `nil` for `{name}` (fields not expanded) and empty for `{name=}`.
  ///
  /// `name` is the raw name; `?` is clang's anonymous name.
  case structure(name: String, fields: [Field]?)
  /// `(name=fields)`, with the same conventions as ``structure(name:fields:)``.
  case union(name: String, fields: [Field]?)
  /// A bitfield, NeXT form `b<width>` or GNU form `b<offset><type><width>`.
  case bitfield(Bitfield)
  /// `jT`: `_Complex T`.
  indirect case complex(TypeEncoding)
  /// `AT`: `_Atomic T`.
  indirect case atomic(TypeEncoding)
  /// A type prefixed by a qualifier such as `r` (const) or `n` (in).
  indirect case qualified(TypeQualifier, TypeEncoding)
  /// A parameter for which clang wrote an empty encoding (vectors, member pointers, `_BitInt`).
  ///
  /// Appears only in signatures, where the offsets around it reveal it; it prints as nothing.
  case unencodable
}

extension TypeEncoding {
  /// One field of a structure or union: an optional quoted name and a type.
  ///
  ///     {CGPoint="x"d"y"d}
  public struct Field: Hashable, Sendable {
    /// The field name written as `"name"` before the type, if any.
    public var name: String?
    /// The field's type.
    public var type: TypeEncoding

    /// Creates a field.
    public init(name: String? = nil, type: TypeEncoding) {
      self.name = name
      self.type = type
    }
  }

  /// A bitfield member.
  ///
  /// Apple and NeXT runtimes write only the width, `b3`; the GNU runtime writes the bit offset
  /// inside the structure, the declared type and the width, `b0i3`.
  public struct Bitfield: Hashable, Sendable {
    /// The bit offset from the start of the enclosing structure (GNU form only).
    public var bitOffset: UInt64?
    /// The declared type (GNU form only).
    public var declaredType: TypeCode?
    /// The width in bits.
    public var width: UInt64

    /// Creates a NeXT-form bitfield, `b<width>`.
    public init(width: UInt64) {
      self.bitOffset = nil
      self.declaredType = nil
      self.width = width
    }

    /// Creates a GNU-form bitfield, `b<bitOffset><declaredType><width>`.
    public init(bitOffset: UInt64, declaredType: TypeCode, width: UInt64) {
      self.bitOffset = bitOffset
      self.declaredType = declaredType
      self.width = width
    }

    /// Whether this is the GNU form, which records the offset and type.
    public var isGNUForm: Bool { bitOffset != nil }
  }
}

/// The one-byte primitive type codes.
///
///     TypeCode(rawValue: UInt8(ascii: "q"))  // .longLong
public enum TypeCode: UInt8, Hashable, Sendable, CaseIterable {
  /// `c`: `char` (signed), or `BOOL` on some Apple targets.
  case char = 0x63
  /// `i`: `int` and non-fixed enums.
  case int = 0x69
  /// `s`: `short`.
  case short = 0x73
  /// `l`: a 32-bit `long` (clang writes it only where `long` is 32 bits).
  case long = 0x6C
  /// `q`: `long long`, and `long` on LP64.
  case longLong = 0x71
  /// `C`: `unsigned char` (and plain `char` on aarch64 Linux).
  case unsignedChar = 0x43
  /// `I`: `unsigned int`.
  case unsignedInt = 0x49
  /// `S`: `unsigned short`.
  case unsignedShort = 0x53
  /// `L`: a 32-bit `unsigned long`.
  case unsignedLong = 0x4C
  /// `Q`: `unsigned long long`, and `unsigned long` on LP64.
  case unsignedLongLong = 0x51
  /// `t`: `__int128`.
  case int128 = 0x74
  /// `T`: `unsigned __int128`.
  case unsignedInt128 = 0x54
  /// `f`: `float`.
  case float = 0x66
  /// `d`: `double`.
  case double = 0x64
  /// `D`: `long double`.
  case longDouble = 0x44
  /// A single space: `_Float16`, `__bf16` or `__float128` (clang cannot tell them apart).
  case otherFloat = 0x20
  /// `B`: `_Bool` / `bool`.
  case bool = 0x42
  /// `v`: `void`.
  case void = 0x76
  /// `*`: `char *`.
  case cString = 0x2A
  /// `#`: `Class`.
  case `class` = 0x23
  /// `:`: `SEL`.
  case selector = 0x3A
  /// `%`: an NXAtom (`const char *` interned string) in old NeXT encodings.
  case atom = 0x25
  /// `?`: an unknown type, such as a function (`^?` is a function pointer).
  case unknown = 0x3F

  /// Whether clang treats the type as integral (its parameter slot is at least `sizeof(int)`).
  public var isIntegral: Bool {
    switch self {
    case .char, .int, .short, .long, .longLong, .unsignedChar, .unsignedInt, .unsignedShort,
      .unsignedLong, .unsignedLongLong, .int128, .unsignedInt128, .bool:
      return true
    default:
      return false
    }
  }
}

/// A qualifier prefix: `r n N o O R V`.
///
///     try TypeEncoding(parsing: "r*")  // .qualified(.const, .primitive(.cString))
public enum TypeQualifier: UInt8, Hashable, Sendable, CaseIterable {
  /// `r`: `const` on the outermost pointee.
  case const = 0x72
  /// `n`: `in`.
  case `in` = 0x6E
  /// `N`: `inout`.
  case `inout` = 0x4E
  /// `o`: `out`.
  case out = 0x6F
  /// `O`: `bycopy`.
  case bycopy = 0x4F
  /// `R`: `byref`.
  case byref = 0x52
  /// `V`: `oneway`.
  case oneway = 0x56

  /// The Objective-C keyword or C qualifier spelling.
  public var keyword: String {
    switch self {
    case .const: "const"
    case .in: "in"
    case .inout: "inout"
    case .out: "out"
    case .bycopy: "bycopy"
    case .byref: "byref"
    case .oneway: "oneway"
    }
  }
}

extension TypeEncoding {
  /// The type with every qualifier prefix removed from the top.
  ///
  ///     try TypeEncoding(parsing: "rn^i").unqualified  // ^i
  public var unqualified: TypeEncoding {
    var type = self
    while case .qualified(_, let inner) = type { type = inner }
    return type
  }

  /// Whether this is an `@?` block pointer, with or without a nested signature.
  public var isBlock: Bool {
    if case .block = unqualified { return true }
    return false
  }

  /// Whether this is a plain object `@` (a class name may be attached).
  public var isObject: Bool {
    if case .object = unqualified { return true }
    return false
  }
}
