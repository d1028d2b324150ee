// Many files scanned on all cores, handed back in the order given as soon as each file and
// the ones before it are done: what `blocksig dump` streams, as a library API.

import BlockSignature
import BlockSignatureSystem
import Dispatch

/// A scan of many files in parallel whose results come back in input order, streaming.
///
///     let scan = BinaryBatchScan(files: BinaryBatchScan.files(under: "/usr/lib").map {
///       .init(path: $0, explicit: false)
///     })
///     for index in scan.inputs.indices {
///       if case .scanned(let reports) = scan.take(index) { print(reports.count) }
///     }
///
/// The scan starts when the value is made. ``take(_:)`` waits for one file's outcome and lets
/// go of it, so a long run holds only the reports not yet taken.
public final class BinaryBatchScan: Sendable {
  /// One file to scan.
  public struct Input: Hashable, Sendable {
    /// The path.
    public var path: String
    /// Named by the caller (scanned whatever it is) rather than found in a folder (skipped
    /// when it is not a binary the scanner reads).
    public var explicit: Bool

    /// Creates an input.
    public init(path: String, explicit: Bool) {
      self.path = path
      self.explicit = explicit
    }
  }

  /// What became of one file.
  public enum Outcome: Sendable {
    /// Its reports (an archive has one per member).
    case scanned([BinaryScanReport])
    /// It could not be read or decoded.
    case failed(path: String, error: BinaryScanError)
    /// Found in a folder, and not a binary the scanner reads.
    case skipped
  }

  /// The files, in the order their outcomes are taken.
  public let inputs: [Input]
  private let slots: [Slot]

  /// Starts scanning `inputs` on all cores; `progress`, if given, is called from the workers
  /// with the number of files done after each.
  public init(files inputs: [Input], progress: (@Sendable (_ done: Int, _ total: Int) -> Void)? = nil) {
    self.inputs = inputs
    let slots = inputs.map { _ in Slot() }
    self.slots = slots
    let done = Counter()
    DispatchQueue.global().async {
      DispatchQueue.concurrentPerform(iterations: inputs.count) { index in
        slots[index].store(Self.scan(inputs[index]))
        progress?(done.increment(), inputs.count)
      }
    }
  }

  /// The outcome of file `index`, waiting until it is done; the scan lets go of it.
  public func take(_ index: Int) -> Outcome { slots[index].take() }

  private static func scan(_ input: Input) -> Outcome {
    do throws(BinaryScanError) {
      if !input.explicit && !BinaryScanner.isRecognizedBinary(fileAt: input.path) { return .skipped }
      return .scanned(try BinaryScanner.scan(fileAt: input.path))
    } catch {
      return .failed(path: input.path, error: error)
    }
  }

  /// Regular files under `directory`, sorted, named from `directory` as given. A symbolic link
  /// to a regular file counts once with the file it names (`libfoo.so` → `libfoo.so.1`: one
  /// scan, under the file's own name when it is in the tree too); links to folders are not
  /// followed, so a link cycle cannot loop.
  public static func files(under directory: String) -> [String] {
    let prefix = directory.hasSuffix("/") ? directory : directory + "/"
    var candidates: [(path: String, isLink: Bool)] = []
    var folders = [prefix]
    while let folder = folders.popLast() {
      guard case .success(let names) = system_directoryEntries(folder) else { continue }
      for name in names {
        let path = folder + name
        switch system_fileKind(path, followingLinks: false) {
        case .directory: folders.append(path + "/")
        case .regular: candidates.append((path, false))
        case .symbolicLink: candidates.append((path, true))
        case .other, nil: break
        }
      }
    }
    // Files before links, so a file is named as itself; then each file once.
    candidates.sort { ($0.isLink ? 1 : 0, $0.path) < ($1.isLink ? 1 : 0, $1.path) }
    var seen = Set<[UInt64]>()
    var result: [String] = []
    for candidate in candidates where system_fileKind(candidate.path, followingLinks: true) == .regular {
      guard let identity = system_fileIdentity(candidate.path) else { continue }
      if seen.insert(identity).inserted { result.append(candidate.path) }
    }
    return result.sorted()
  }

  /// One file's outcome: stored once by a worker, taken once by the reader.
  private final class Slot: Sendable {
    private let ready = DispatchSemaphore(value: 0)
    private let outcome = Locked<Outcome?>(nil)

    func store(_ value: Outcome) {
      outcome.withLock { $0 = value }
      ready.signal()
    }

    func take() -> Outcome {
      ready.wait()
      ready.signal()  // a second take sees .skipped, not a hang
      return outcome.withLock { stored in
        defer { stored = .skipped }
        return stored ?? .skipped
      }
    }
  }

  /// The files done so far.
  private final class Counter: Sendable {
    private let count = Locked(0)
    func increment() -> Int {
      count.withLock {
        $0 += 1; return $0
      }
    }
  }
}
