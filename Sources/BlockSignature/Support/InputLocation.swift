// The one shape of "where in the input": every error that knows its input says it this way.

/// Where a problem is: a range of bytes in one input, and which input that is.
///
///     do {
///       _ = try TypeEncoding(parsing: "{S=i")
///     } catch {
///       error.location  // bytes 0..<4 of the type encoding "{S=i"
///     }
///
/// Byte offsets count from 0, as the input's UTF-8 is laid out; a diagnostic printed for a
/// person shows ``column`` (from 1), as compilers do.
public struct InputLocation: Hashable, Sendable, CustomStringConvertible {
  /// Which kind of input the bytes are in.
  public enum Input: String, Hashable, Sendable, CaseIterable, CustomStringConvertible {
    /// A type encoding or signature (`@encode`, a block or method signature).
    case typeEncoding
    /// A Swift function type (`(Int32) -> Void`).
    case swiftType
    /// An extended block layout byte string.
    case extendedLayout
    /// A JSON value (a `blocksig call` argument).
    case json
    /// A line of a callback table or protocol description's text form.
    case textForm

    /// The input's kind in words: "type encoding".
    public var description: String {
      switch self {
      case .typeEncoding: "type encoding"
      case .swiftType: "Swift type"
      case .extendedLayout: "extended layout"
      case .json: "JSON value"
      case .textForm: "text form"
      }
    }
  }

  /// Which kind of input.
  public var input: Input
  /// The input itself, when it is text kept with the error (`nil` for bytes).
  public var text: String?
  /// The line of a multi-line input the bytes are in (from 1), when there are lines.
  public var line: Int?
  /// The bytes the problem covers, from 0; empty at the end of the input.
  public var bytes: Range<Int>

  /// Creates a location.
  public init(_ input: Input, text: String? = nil, line: Int? = nil, bytes: Range<Int>) {
    self.input = input
    self.text = text
    self.line = line
    self.bytes = bytes
  }

  /// The column of the first byte, counted from 1.
  public var column: Int { bytes.lowerBound + 1 }

  /// "bytes 0..<4 of the type encoding "{S=i"", "line 3, column 5 of the text form".
  public var description: String {
    let place = line.map { "line \($0), column \(column)" } ?? "bytes \(bytes.lowerBound)..<\(bytes.upperBound)"
    return "\(place) of the \(input)" + (text.map { " \"\(shortened($0))\"" } ?? "")
  }
}
