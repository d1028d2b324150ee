// Mapping C-representable Swift function types, given as text, to the encodings the Swift
// compiler writes for `@convention(block)` closures of those types.

/// A Swift function type made of C-representable types, and the block signature a
/// `@convention(block)` closure of that type carries.
///
///     let type = try SwiftFunctionType(parsing: "(Int32, UnsafePointer<CChar>?) -> Int32")
///     type.returnType        // i
///     type.parameterTypes    // [i, r*]
///     type.blockEncoding     // i20@?0i8r*12
///
/// The mapping follows the Swift compiler (checked against the signatures of real closures):
///
/// | Swift | encoding |
/// | --- | --- |
/// | `Int8` `Int16` `Int32` `Int64` | `c` `s` `i` `q` |
/// | `UInt8` `UInt16` `UInt32` `UInt64` | `C` `S` `I` `Q` |
/// | `Int`, `UInt` | `q`, `Q` (`i`, `I` with 4-byte pointers) |
/// | `Bool`, `CBool` | `B` |
/// | `Float`, `Double`, `Float80`, `Float16` | `f`, `d`, `D`, a space |
/// | `CChar`, `CInt`, `CLong` … | as their C types on the model (`CChar` is `C` where `char` is unsigned) |
/// | `UnsafePointer<CChar>` (also `Int8`, `UInt8`) | `r*` |
/// | `UnsafeMutablePointer<CChar>` | `*` |
/// | `UnsafePointer<T>`, `UnsafeMutablePointer<T>` | `r^T`, `^T` (`r` when the innermost pointee is const, as clang writes it) |
/// | `UnsafeRawPointer`, `UnsafeMutableRawPointer`, `OpaquePointer` | `^v` |
/// | `AnyObject`, `AnyClass` | `@`, `#` |
/// | `@convention(block) (…) -> R` | `@?<R@?…>` |
/// | `(…) -> R` as a parameter or result of a block (Swift passes it as a block) | `@?<R@?…>` |
/// | `@convention(c) (…) -> R` | `^?` |
/// | `Void`, `()` | `v` |
///
/// Optionals (`T?`, `T!`, `Optional<T>`) of pointers, objects and functions have the same
/// encoding as `T`; module prefixes (`Swift.Int32`), labels (`_ x: Int32`), `@escaping`,
/// `@Sendable`, `inout` (a mutable pointer) and `throws`-free types are accepted.
public struct SwiftFunctionType: Hashable, Sendable, CustomStringConvertible {
  /// The text parsed.
  public var source: String
  /// The data model the types were mapped for.
  public var model: DataModel
  /// The encoding of the result type.
  public var returnType: TypeEncoding
  /// The encodings of the parameters, in order.
  public var parameterTypes: [TypeEncoding]

  /// Parses a Swift function type and maps it to encodings on `model`, this machine's by
  /// default (``DataModel/host``): `Int` is `q` where pointers have 8 bytes, `CChar` is `C`
  /// where `char` is unsigned.
  ///
  ///     try SwiftFunctionType(parsing: "(CChar) -> Int", model: .aarch64Linux).blockEncoding  // q12@?0C8
  ///
  /// - Throws: ``SwiftTypeError`` with the byte offset of the problem: unexpected text, or a
  ///   type with no C representation (`String`, `Int32?`, a tuple);
  ///   ``SwiftTypeError/Kind/unknownDataModel`` at offset 0 when `model` is nil (no built-in
  ///   model describes this machine).
  public init(parsing source: String, model: DataModel? = .host) throws(SwiftTypeError) {
    guard let model else {
      throw SwiftTypeError(
        kind: .unknownDataModel, offset: 0, input: source, message: "no data model describes this machine: pass one")
    }
    (returnType, parameterTypes) = try withContiguousUTF8(source) { bytes throws(SwiftTypeError) in
      var parser = SwiftTypeParser(bytes: bytes, source: source, model: model)
      return try parser.parseTopLevel()
    }
    self.source = source
    self.model = model
  }

  /// The block signature, with clang's offsets on ``model``: `(Int32, Double) -> Int32` gives
  /// `i20@?0i8d12`.
  public var blockEncoding: SignatureEncoding {
    let plain = SignatureEncoding(
      returnType: returnType,
      arguments: [.init(type: .block(signature: nil))] + parameterTypes.map { .init(type: $0) })
    return (try? plain.synthesizingOffsets(for: model)) ?? plain
  }

  /// The Swift text.
  public var description: String { source }
}
