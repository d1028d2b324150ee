// The benchmark corpus: signatures clang wrote for random C block types and Objective-C methods,
// with clang's sizeof/_Alignof of every return and argument type (Corpus/generate.py).

import BlockSignature
import Foundation

/// One corpus line: a signature clang wrote and clang's sizes for it.
public struct CorpusEntry: Sendable {
  /// `b123` for a block, `m45` for a method.
  public var id: String
  /// `block` or `method`.
  public var kind: String
  /// The signature, byte for byte as clang wrote it.
  public var signature: String
  /// `sizeof` and `_Alignof` of the return type (0, 0 for `void`) then of each argument,
  /// the block itself (or `self` and `_cmd`) included.
  public var truth: [(size: Int, alignment: Int)]
  /// The C or Objective-C declaration the signature came from.
  public var declaration: String
}

/// Where the corpus and the peers' subsets live, and how to load them.
public enum Corpus {
  /// The `Benchmarks/` folder: `BLOCKSIG_BENCHMARKS_DIR`, or found from this source file.
  public static var benchmarksDirectory: URL {
    if let path = ProcessInfo.processInfo.environment["BLOCKSIG_BENCHMARKS_DIR"] {
      return URL(fileURLWithPath: path)
    }
    return URL(fileURLWithPath: #filePath)
      .deletingLastPathComponent()  // BenchmarkCorpus
      .deletingLastPathComponent()  // Sources
      .deletingLastPathComponent()  // Benchmarks
  }

  /// `Corpus/signatures.tsv`.
  public static var tableURL: URL {
    benchmarksDirectory.appendingPathComponent("Corpus").appendingPathComponent("signatures.tsv")
  }

  /// Reads every entry of `Corpus/signatures.tsv`.
  public static func load(from url: URL = tableURL) throws -> [CorpusEntry] {
    let text = try String(contentsOf: url, encoding: .utf8)
    var entries: [CorpusEntry] = []
    for line in text.split(separator: "\n", omittingEmptySubsequences: true) where !line.hasPrefix("#") {
      let columns = line.split(separator: "\t", omittingEmptySubsequences: false)
      guard columns.count >= 4 else { throw CorpusError(line: String(line)) }
      var truth: [(size: Int, alignment: Int)] = []
      for pair in columns[3].split(separator: " ") {
        let parts = pair.split(separator: ":")
        guard parts.count == 2, let size = Int(parts[0]), let alignment = Int(parts[1]) else {
          throw CorpusError(line: String(line))
        }
        truth.append((size, alignment))
      }
      entries.append(
        CorpusEntry(
          id: String(columns[0]), kind: String(columns[1]), signature: String(columns[2]), truth: truth,
          declaration: columns.count > 4 ? String(columns[4]) : ""))
    }
    return entries
  }

  /// The signatures a peer survives (`.build-peers/subset-<peer>.txt`, written by `run.sh`),
  /// or `nil` when the peers have not been probed.
  public static func subset(named peer: String) -> [String]? {
    let url = benchmarksDirectory.appendingPathComponent(".build-peers")
      .appendingPathComponent("subset-\(peer).txt")
    guard let text = try? String(contentsOf: url, encoding: .utf8) else { return nil }
    return text.split(separator: "\n", omittingEmptySubsequences: true).map(String.init)
  }

  /// The named inputs every benchmark runs on: the whole corpus, blocks only, methods only, and
  /// each probed peer's subset.
  public static func inputs() throws -> [(label: String, signatures: [String])] {
    let entries = try load()
    var inputs: [(label: String, signatures: [String])] = [
      ("corpus", entries.map(\.signature)),
      ("blocks", entries.filter { $0.kind == "block" }.map(\.signature)),
      ("methods", entries.filter { $0.kind == "method" }.map(\.signature)),
    ]
    for peer in ["libobjc", "gnustep"] {
      if let subset = subset(named: peer), !subset.isEmpty { inputs.append(("\(peer)-subset", subset)) }
    }
    return inputs
  }
}

/// A corpus line that does not have the four tab-separated columns.
public struct CorpusError: Error, CustomStringConvertible {
  /// The offending line.
  public var line: String
  /// "malformed corpus line: …".
  public var description: String { "malformed corpus line: \(line)" }
}

/// Signatures packed into one contiguous byte buffer, each addressed as an
/// `UnsafeBufferPointer<UInt8>` — what the peers get as C strings, with no per-call conversion.
public final class PackedSignatures: @unchecked Sendable {
  private let storage: UnsafeMutableBufferPointer<UInt8>
  /// The bytes of every signature, in order: a loop over this array costs a benchmark only the
  /// iteration (the peers' drivers walk an array of C strings).
  public let buffers: [UnsafeBufferPointer<UInt8>]

  /// Packs `signatures`.
  public init(_ signatures: [String]) {
    let total = signatures.reduce(0) { $0 + $1.utf8.count }
    let storage = UnsafeMutableBufferPointer<UInt8>.allocate(capacity: max(total, 1))
    var buffers: [UnsafeBufferPointer<UInt8>] = []
    buffers.reserveCapacity(signatures.count)
    var offset = 0
    for signature in signatures {
      let count = signature.utf8.count
      let slice = UnsafeMutableBufferPointer(rebasing: storage[offset..<offset + count])
      _ = slice.initialize(from: signature.utf8)
      buffers.append(UnsafeBufferPointer(slice))
      offset += count
    }
    self.storage = storage
    self.buffers = buffers
  }

  deinit { storage.deallocate() }

  /// The number of signatures.
  public var count: Int { buffers.count }

}
