// What the one reader of the grammar (`EncodingReader`) hands on: one event per node, in the
// order of the bytes. The tree (`TreeBuilder`) and the frame's layout (`FrameMeasure`) are sinks;
// neither reads a byte itself.

/// A node with inner types, as `EncodingSink.open(_:)` receives it.
enum EncodingNode {
  /// `r`, `n`, `N`, `o`, `O`, `R` or `V` before a type (only for sinks that read qualifiers).
  case qualifier(TypeQualifier)
  /// `^`.
  case pointer
  /// `j`.
  case complex
  /// `A`.
  case atomic
  /// `[count`.
  case array(count: UInt64)
  /// `{name=` or `(name=`: a record whose fields follow (possibly none).
  case record(isUnion: Bool, name: UnsafeBufferPointer<UInt8>)
  /// `@?<`: a block's nested signature.
  case nestedSignature
}

/// Receives the nodes of one type, outermost first. Every method returns `false` to stop the
/// reader (a sink that cannot go on, such as a size that overflows); the reader reports no error
/// then. Names are UTF-8 the reader has validated.
protocol EncodingSink {
  /// Whether qualifiers are reported as `open(.qualifier(_:))` … `close(_:)` pairs.
  static var readsQualifiers: Bool { get }
  /// Whether a pointer's pointee and a nested signature's types are reported between their
  /// `open(_:)` and `close(_:)`; when not, the reader checks their syntax alone.
  static var readsPointees: Bool { get }
  /// A primitive type code.
  mutating func primitive(_ code: TypeCode) -> Bool
  /// `@` or `@"name"`.
  mutating func object(className: UnsafeBufferPointer<UInt8>?) -> Bool
  /// `@?` without a nested signature.
  mutating func block() -> Bool
  /// `b…`.
  mutating func bitfield(_ bitfield: TypeEncoding.Bitfield) -> Bool
  /// `{name}` or `(name)`: a record whose fields are not encoded.
  mutating func record(isUnion: Bool, name: UnsafeBufferPointer<UInt8>) -> Bool
  /// A node whose inner types follow, up to the matching ``close()``.
  mutating func open(_ node: EncodingNode) -> Bool
  /// Before each field of an open record: its quoted name, if it has one.
  mutating func field(name: UnsafeBufferPointer<UInt8>?) -> Bool
  /// The innermost open node, of `kind`, is complete.
  mutating func close(_ kind: ReaderNesting.Kind) -> Bool
}

/// A sink that takes everything: reading into it checks the syntax alone.
struct SyntaxCheck: EncodingSink {
  static var readsQualifiers: Bool { false }
  static var readsPointees: Bool { true }
  @inline(__always) mutating func primitive(_ code: TypeCode) -> Bool { true }
  @inline(__always) mutating func object(className: UnsafeBufferPointer<UInt8>?) -> Bool { true }
  @inline(__always) mutating func block() -> Bool { true }
  @inline(__always) mutating func bitfield(_ bitfield: TypeEncoding.Bitfield) -> Bool { true }
  @inline(__always) mutating func record(isUnion: Bool, name: UnsafeBufferPointer<UInt8>) -> Bool { true }
  @inline(__always) mutating func open(_ node: EncodingNode) -> Bool { true }
  @inline(__always) mutating func field(name: UnsafeBufferPointer<UInt8>?) -> Bool { true }
  @inline(__always) mutating func close(_ kind: ReaderNesting.Kind) -> Bool { true }
}
