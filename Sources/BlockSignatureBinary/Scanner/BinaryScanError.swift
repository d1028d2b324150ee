// Errors and warnings of the binary scanner (LLVM Object style: name the thing, give hex offsets).

import BlockSignature

/// A fatal problem with a binary: the file cannot be read, is not a supported format, or its
/// headers are damaged so that nothing in it can be trusted, or the file is shorter than they
/// say (a truncated file: an ELF section header table, a Mach-O segment, symbol table or
/// string table past its end). A single damaged section or relocation table is a warning.
///
///     do { _ = try BinaryScanner.scan(fileAt: "libfoo.so") }
///     catch let error as BinaryScanError { print(error) }  // "section header table at 0x4000 ..."
public struct BinaryScanError: Error, Hashable, Sendable, CustomStringConvertible {
  /// What kind of problem this is.
  public enum Kind: String, Hashable, Sendable, CaseIterable, CustomStringConvertible {
    /// The file could not be opened or mapped.
    case unreadable
    /// The file is neither ELF, Mach-O nor an `ar` archive.
    case unrecognizedFormat
    /// The format is recognised but this variant (class, byte order, machine) is not supported.
    case unsupportedVariant
    /// A header or table lies (partly) outside the file or is internally inconsistent.
    case malformed

    /// What the kind means, in lower-case words.
    public var description: String {
      switch self {
      case .unreadable: "unreadable file"
      case .unrecognizedFormat: "unrecognized format"
      case .unsupportedVariant: "unsupported variant"
      case .malformed: "malformed file"
      }
    }
  }

  /// What kind of problem this is.
  public var kind: Kind
  /// The file offset the problem was found at, if there is one.
  public var offset: UInt64?
  /// A lower-case message that names the thing and the numbers.
  public var message: String

  /// Creates an error.
  public init(_ kind: Kind, offset: UInt64?, _ message: String) {
    self.kind = kind
    self.offset = offset
    self.message = message
  }

  /// The message.
  public var description: String { message }
}

/// A recoverable problem found while scanning (one damaged descriptor, a relocation that points
/// nowhere). The scan continues; the report lists every warning.
///
/// Every message comes from the catalog (`BinaryScanWarning+Catalog.swift`), with a ``kind``
/// that classifies it.
public struct BinaryScanWarning: Hashable, Sendable, Codable, CustomStringConvertible {
  /// What the warning is about.
  public var kind: Kind
  /// The file offset (or, in linked images, the address) the warning is about, if any.
  public var offset: UInt64?
  /// A lower-case message in LLVM's style, e.g.
  /// "descriptor at 0x1a40 points past end of section .data.rel.ro (size 0x300)".
  public var message: String

  /// Creates a warning.
  public init(kind: Kind, offset: UInt64?, message: String) {
    self.kind = kind
    self.offset = offset
    self.message = message
  }

  /// The message.
  public var description: String { message }
}

/// The warnings of one scan, of which at most ``limit`` are kept: a hostile file can hold
/// millions of bad relocations or descriptors, and a message for each would cost memory in
/// proportion (the rest are counted, and one last warning says how many were left out).
struct ScanWarnings {
  static let limit = 256
  private(set) var kept: [BinaryScanWarning] = []
  /// Warnings counted but not kept.
  private(set) var dropped = 0

  /// Adds a warning, or counts it once ``limit`` warnings are kept.
  mutating func append(_ warning: BinaryScanWarning) {
    if kept.count < Self.limit {
      kept.append(warning)
    } else {
      dropped += 1
    }
  }

  /// Adds the warnings of another part of the scan, in order.
  mutating func append(contentsOf other: ScanWarnings) {
    for warning in other.kept { append(warning) }
    dropped += other.dropped
  }

  /// What the report lists: the warnings kept, then one that counts those left out.
  var reported: [BinaryScanWarning] {
    guard dropped > 0 else { return kept }
    return kept + [.warningsDropped(dropped, limit: Self.limit)]
  }
}

/// Formats `value` as `0x…` lower-case hex (``BinaryInteger/hexadecimal(digits:prefixed:)``).
@inline(__always)
func hex(_ value: some BinaryInteger) -> String { value.hexadecimal() }
