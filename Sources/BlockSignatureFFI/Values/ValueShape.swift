// How a value of one encoded type sits in memory, resolved once from the encoding and the
// layout engine: what the typed path writes and reads, and what the libffi type is built from.

import BlockSignature

/// A type's memory shape: sizes, offsets and signedness, with no encoding left to interpret.
package indirect enum ValueShape: Hashable, Sendable {
  /// No bytes: `void`, or a record without bytes (clang passes neither).
  case empty
  /// A two's-complement integer of `size` bytes (1, 2, 4, 8 or 16); `name` is its C type.
  case integer(size: Int, isSigned: Bool, name: String)
  case bool
  case float
  case double
  /// `long double` of `size` bytes (x87 extended precision, stored in 16 on x86_64).
  case longDouble(size: Int)
  /// `_Complex T`: two `element`s, `elementSize` apart.
  case complex(element: ValueShape, elementSize: Int)
  /// A pointer-sized address; `isCString` for `char *`, which also takes a string.
  case pointer(isCString: Bool)
  /// A structure of `size` bytes.
  case record(size: Int, members: [Member])
  /// An array member: `count` elements, `stride` bytes apart.
  case array(count: Int, stride: Int, element: ValueShape)
  /// A union of `size` bytes; every member starts at 0.
  case union(size: Int, members: [ValueShape])
  /// A bitfield member: `width` bits from bit `bitOffset` of its record.
  case bitfield(bitOffset: Int, width: Int, isSigned: Bool)

  /// A member of a record and its byte offset (0 for a bitfield, whose shape holds its bits).
  package struct Member: Hashable, Sendable {
    package var offset: Int
    package var shape: ValueShape
  }

  /// The size in bytes.
  package var size: Int {
    switch self {
    case .empty, .bitfield: 0
    case .integer(let size, _, _): size
    case .bool: 1
    case .float: 4
    case .double: 8
    case .longDouble(let size): size
    case .complex(_, let elementSize): 2 * elementSize
    case .pointer: MemoryLayout<UInt>.size
    case .record(let size, _), .union(let size, _): size
    case .array(let count, let stride, _): count * stride
    }
  }
}

/// Why a type has no shape: a sentence, and the path inside the type.
struct ShapeError: Error {
  var path: [String]
  var message: String
}

extension ValueShape {
  /// The shape of `type` on `model`; `inRecord` keeps an array an array (a parameter's array
  /// is a pointer). Refuses what the encoding leaves open.
  init(_ type: TypeEncoding, model: DataModel, inRecord: Bool = false) throws(ShapeError) {
    let bare = type.unqualified
    switch bare {
    case .primitive(let code):
      self = try Self.primitive(code, type: bare, model: model)
    case .object, .block, .pointer:
      self = .pointer(isCString: false)
    case .array(let count, let element):
      guard inRecord else {
        self = .pointer(isCString: false)
        return
      }
      let elementShape = try ValueShape(element, model: model, inRecord: true)
      let stride = try Self.layout(of: element, model: model).size
      guard count <= 1 << 20 else { throw ShapeError(path: [], message: "an array of \(count) elements is too large") }
      self = .array(count: Int(count), stride: stride, element: elementShape)
    case .structure(_, let fields?), .union(_, let fields?):
      self = try Self.record(bare, fields: fields, model: model)
    case .structure, .union:
      throw ShapeError(path: [], message: "\(Self.name(of: bare, model)) does not list its members")
    case .complex(let inner):
      let element = try ValueShape(inner, model: model, inRecord: true)
      switch element {
      case .integer, .float, .double, .longDouble: break
      default: throw ShapeError(path: [], message: "_Complex of \(Self.name(of: inner, model)) is not a C type")
      }
      self = .complex(element: element, elementSize: element.size)
    case .atomic(let inner) where inner.unqualified.isScalar:
      self = try ValueShape(inner, model: model, inRecord: inRecord)
    case .atomic:
      throw ShapeError(path: [], message: "an _Atomic aggregate has no calling convention libffi can be told")
    case .bitfield:
      throw ShapeError(path: [], message: "a bitfield outside a structure")
    case .unencodable:
      throw ShapeError(
        path: [],
        message: "the type has no encoding (a vector, _BitInt or member pointer): its calling convention is unknown")
    case .qualified:
      preconditionFailure("unqualified")
    }
  }

  private static func primitive(_ code: TypeCode, type: TypeEncoding, model: DataModel) throws(ShapeError) -> ValueShape
  {
    switch code {
    case .char, .short, .int, .long, .longLong, .int128, .unsignedChar, .unsignedShort, .unsignedInt,
      .unsignedLong, .unsignedLongLong, .unsignedInt128:
      let size = try layout(of: type, model: model).size
      guard [1, 2, 4, 8, 16].contains(size) else {
        throw ShapeError(path: [], message: "\(name(of: type, model)) is \(size) bytes on \(model)")
      }
      let isSigned = [.char, .short, .int, .long, .longLong, .int128].contains(code)
      return .integer(size: size, isSigned: isSigned, name: name(of: type, model))
    case .bool: return .bool
    case .float: return .float
    case .double: return .double
    case .longDouble:
      #if arch(x86_64) || arch(i386)
        return .longDouble(size: try layout(of: type, model: model).size)
      #else
        throw ShapeError(path: [], message: "long double has no Swift value type on this architecture")
      #endif
    case .cString: return .pointer(isCString: true)
    case .class, .selector, .atom: return .pointer(isCString: false)
    case .void: return .empty
    case .otherFloat:
      throw ShapeError(
        path: [], message: "a single space may be _Float16, __bf16 or __float128: its calling convention is unknown")
    case .unknown:
      throw ShapeError(path: [], message: "'?' (an unknown type) has no calling convention")
    }
  }

  private static func record(_ type: TypeEncoding, fields: [TypeEncoding.Field], model: DataModel) throws(ShapeError)
    -> ValueShape
  {
    let layout = try layout(of: type, model: model)
    guard layout.caveats.isEmpty else {
      throw ShapeError(path: [], message: "the layout of \(name(of: type, model)) is an estimate: \(layout.caveats)")
    }
    var members: [Member] = []
    for (index, field) in fields.enumerated() {
      let shape: ValueShape
      if case .bitfield(let bitfield) = field.type.unqualified {
        let isSigned = bitfield.declaredType.map { [.char, .short, .int, .long, .longLong].contains($0) } ?? false
        shape = .bitfield(bitOffset: layout.bitOffsets[index], width: Int(bitfield.width), isSigned: isSigned)
        members.append(Member(offset: 0, shape: shape))
        continue
      }
      do {
        shape = try ValueShape(field.type, model: model, inRecord: true)
      } catch {
        throw ShapeError(path: ["member \(index)"] + error.path, message: error.message)
      }
      members.append(Member(offset: layout.offsets[index], shape: shape))
    }
    if case .union = type { return .union(size: layout.size, members: members.map(\.shape)) }
    return .record(size: layout.size, members: members)
  }

  static func layout(of type: TypeEncoding, model: DataModel) throws(ShapeError) -> TypeLayout {
    do {
      return try type.layout(for: model)
    } catch {
      throw ShapeError(path: [], message: error.description)
    }
  }

  static func name(of type: TypeEncoding, _ model: DataModel) -> String {
    type.cDeclaration(for: model)
  }
}

extension ValueShape {
  /// The shape of a value of `type` read from or written to memory on `model` (nil: no model
  /// describes this machine), no larger than a call passes.
  static func ofValue(_ type: TypeEncoding, model: DataModel?) throws(InvocationError) -> ValueShape {
    guard let model else {
      throw InvocationError(kind: .unsupportedType, message: "no data model describes this machine")
    }
    do {
      let shape = try ValueShape(type, model: model)
      try CallInterface.checkSize(of: shape)
      return shape
    } catch {
      throw InvocationError(kind: .unsupportedType, path: error.path, message: error.message)
    }
  }
}
