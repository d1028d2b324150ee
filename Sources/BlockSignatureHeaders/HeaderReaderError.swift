/// Why ``HeaderReader`` gives no table or protocol: what went wrong (``kind``) and a message
/// that names the header, the member or the method, and what clang said.
///
///     do {
///       _ = try HeaderReader().objcProtocol(header: "delegate.h", named: "Missing")
///     } catch {
///       error.kind     // .notFound
///       error.message  // "/usr/include/delegate.h declares no protocol named 'Missing'" (the absolute path)
///     }
public struct HeaderReaderError: Error, Hashable, Sendable, CustomStringConvertible {
  /// The kinds of failure, grouped by whose fault it is: the caller's names, the machine
  /// (files, programs), or the header and what clang makes of it.
  public enum Kind: String, Hashable, Sendable, CaseIterable, Codable, CustomStringConvertible {
    /// The struct or protocol name is not an identifier.
    case invalidName
    /// The header does not exist, cannot be read, or has a path C cannot `#include`.
    case unreadableHeader
    /// The clang to run cannot be found.
    case compilerNotFound
    /// A temporary file or folder cannot be written, or a program cannot be started.
    case unavailable
    /// clang failed on the header (it does not compile with the arguments given).
    case compileFailed
    /// The header has no struct, typedef or protocol of that name.
    case notFound
    /// The struct or method has something the reader cannot describe: a union, a bitfield,
    /// an unnamed member, a function with no prototype, a type with no encoding.
    case unsupported
    /// The probe exited with an error, or clang or the probe printed what they should not.
    case probeFailed
    /// clang or the probe ran longer than ``HeaderReader/timeLimit`` and was killed.
    case timedOut
    /// clang or the probe was stopped by a signal that stops a program from outside (an
    /// interrupt, a termination): the user's stop, not a fault of the header.
    case interrupted
    /// Two of clang's answers disagree: a layout, or a method string and the one composed
    /// from `@encode` of its types.
    case mismatch

    /// What the kind means, in a few words.
    public var description: String {
      switch self {
      case .invalidName: "invalid name"
      case .unreadableHeader: "unreadable header"
      case .compilerNotFound: "compiler not found"
      case .unavailable: "unavailable"
      case .compileFailed: "compile failed"
      case .notFound: "not found"
      case .unsupported: "unsupported"
      case .probeFailed: "probe failed"
      case .timedOut: "timed out"
      case .interrupted: "interrupted"
      case .mismatch: "mismatch"
      }
    }
  }

  /// What went wrong.
  public var kind: Kind
  /// The message, in lower case, naming the header and the member or method.
  public var message: String

  /// An error of `kind` with `message`.
  public init(_ kind: Kind, _ message: String) {
    self.kind = kind
    self.message = message
  }

  /// The message.
  public var description: String { message }
}
