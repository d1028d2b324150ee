// Checks our parse + layout of every corpus signature against clang's truth.
//
//   corpus-check            one line per signature: id, status, the first difference
//   corpus-check --summary  counts only
//   corpus-check --clean-pairs  per level: how many block/own-method pairs check without a diagnostic
//   corpus-check --scan     for each file of the scanner benchmark: path, bytes, blocks found
//   corpus-check --scan-signatures  the distinct block signatures found in those files, one per line
//   corpus-check --repeat MODE N [FILE]  runs MODE (parse, tree, compact-parse, compact, fast,
//                           reader, floor) N times over the corpus (or the signatures of FILE,
//                           one per line) and prints a checksum: for
//                           instruction counts, run under valgrind with two values of N and divide
//                           the difference by the extra signatures
//   corpus-check --held [FILE]  the mean bytes per signature of the text and of a CompactSignature's
//                           storage (nodes and text in one buffer, as malloc sized it)
//   corpus-check --bench MODE REPEATS FILE  times MODE over the signatures of FILE as the peers'
//                           `driver bench` does (passes calibrated to about 0.2 s a repeat, each
//                           repeat timed alone) and prints `ours<TAB>count<TAB>median<TAB>min<TAB>max`
//                           in ns per signature, so that report.py can time ours and a peer in
//                           alternating pairs of processes
//
// A signature is answered when it parses and lays out without an error; it is correct (OK) when
// the argument count, the return size and alignment (size only for void), each argument's size
// and alignment equal clang's, and the frame length we compute equals the one clang wrote.
// A difference is ESTIMATE when the layout of the differing type carries a caveat (the encoding
// does not decide it: NeXT bitfield units, ' ' for _Float16/__float128, no alignment for an
// unencodable parameter), and WRONG when the layout claimed to be exact.

import BenchmarkCorpus
import BlockSignature
import BlockSignatureBinary
import CBenchFloor
import Foundation

/// Where `--bench` leaves its checksums, so that the timed passes cannot be optimized away.
nonisolated(unsafe) var benchSink = 0

func status(_ layout: TypeLayout) -> String { layout.isExact ? "WRONG" : "ESTIMATE" }

func verdict(_ entry: CorpusEntry) -> (status: String, reason: String) {
  let signature: SignatureEncoding
  do {
    signature = try SignatureEncoding(parsing: entry.signature)
  } catch {
    return ("ERROR", "parse: \(error)")
  }
  let layout: SignatureLayout
  do {
    layout = try signature.layout(for: .x86_64SysV)
  } catch {
    return ("ERROR", "layout: \(error)")
  }
  let truth = entry.truth
  if layout.arguments.count != truth.count - 1 {
    return ("WRONG", "argument count \(layout.arguments.count), clang \(truth.count - 1)")
  }
  let ret = truth[0]
  if layout.returnLayout.size != ret.size || (ret.alignment != 0 && layout.returnLayout.alignment != ret.alignment) {
    return (
      status(layout.returnLayout),
      "return \(signature.returnType) is \(layout.returnLayout.size):\(layout.returnLayout.alignment), clang \(ret.size):\(ret.alignment)"
    )
  }
  for (index, argument) in layout.arguments.enumerated() {
    let expected = truth[index + 1]
    if argument.layout.size != expected.size || argument.layout.alignment != expected.alignment {
      return (
        status(argument.layout),
        "argument \(index) \(signature.arguments[index].type) is \(argument.layout.size):\(argument.layout.alignment), clang \(expected.size):\(expected.alignment)"
      )
    }
  }
  if let written = signature.frameLength?.value, written != layout.frameLength {
    return ("WRONG", "frame \(layout.frameLength), clang \(written)")
  }
  return ("OK", "")
}

if CommandLine.arguments.contains("--clean-pairs") {
  do {
    let blocks = try Corpus.load().filter { $0.kind == "block" }.compactMap {
      try? SignatureEncoding(parsing: $0.signature)
    }
    var output = ""
    for level in CompatibilityLevel.allCases {
      let checker = CompatibilityChecker(level: level, model: .x86_64SysV)
      let clean = blocks.filter { block in
        guard let method = try? block.methodEncoding(for: .x86_64SysV) else { return false }
        return checker.check(block, against: method).diagnostics.isEmpty
      }
      output += "\(level.rawValue)\t\(clean.count)\n"
    }
    FileHandle.standardOutput.write(Data(output.utf8))
    exit(0)
  } catch {
    FileHandle.standardError.write(Data("corpus-check: \(error)\n".utf8))
    exit(1)
  }
}

if CommandLine.arguments.contains("--scan-signatures") {
  // The distinct signatures of the blocks in the scanner benchmark's files, in the order found.
  var seen = Set<String>()
  var output = ""
  for path in ScanFiles.paths() {
    guard let reports = try? BinaryScanner.scan(fileAt: path) else { continue }
    for block in reports.flatMap(\.blocks) {
      guard let signature = block.signature, !signature.contains("\n"), seen.insert(signature).inserted else {
        continue
      }
      output += signature + "\n"
    }
  }
  FileHandle.standardOutput.write(Data(output.utf8))
  exit(0)
}

if CommandLine.arguments.contains("--scan") {
  var output = ""
  for path in ScanFiles.paths() {
    do {
      let reports = try BinaryScanner.scan(fileAt: path)
      let blocks = reports.reduce(0) { $0 + $1.blocks.count }
      let bytes = (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0
      output += "\(path)\t\(bytes)\t\(blocks)\n"
    } catch {
      output += "\(path)\t0\t-1\t\(error)\n"
    }
  }
  FileHandle.standardOutput.write(Data(output.utf8))
  exit(0)
}

/// Runs `mode` (parse, tree, compact-parse, compact, fast, reader) `passes` times over `packed`; returns a checksum of
/// the answers, so that no pass can be optimized away.
func runPasses(_ mode: String, _ passes: Int, over packed: PackedSignatures) -> Int {
  let model = DataModel.x86_64SysV
  // The mode is chosen once, outside the loops, so that a pass costs only the operation.
  let operation: (UnsafeBufferPointer<UInt8>) -> Int =
    switch mode {
    case "parse":
      { (try? SignatureEncoding(parsingBytes: $0))?.arguments.count ?? 0 }
    case "tree":
      { bytes in
        guard let signature = try? SignatureEncoding(parsingBytes: bytes),
          let layout = try? signature.layout(for: model)
        else { return 0 }
        return layout.frameLength &+ layout.returnLayout.size
      }
    case "compact-parse":
      { (try? CompactSignature(parsingBytes: $0))?.argumentCount ?? 0 }
    case "compact":
      { bytes in
        guard let signature = try? CompactSignature(parsingBytes: bytes),
          let layout = try? signature.layout(for: model)
        else { return 0 }
        return layout.frameLength &+ layout.returnLayout.size
      }
    default:
      { bytes in
        guard let frame = try? SignatureFrame(parsingBytes: bytes, for: model) else { return 0 }
        return frame.frameLength &+ frame.returnValue.size
      }
    }
  var checksum = 0
  if mode == "floor" {
    // The floor pass (CBenchFloor), called as the readers are: once per signature.
    for _ in 0..<passes {
      for bytes in packed.buffers { checksum &+= cbench_floor(bytes.baseAddress!, bytes.count) }
    }
  } else if mode == "reader" {
    // A reader is mutated by each scan: its own loop, no closure.
    var reader = SignatureFrame.Reader(model: model)
    for _ in 0..<passes {
      for bytes in packed.buffers {
        guard let frame = try? reader.frame(parsingBytes: bytes) else { continue }
        checksum &+= frame.frameLength &+ frame.returnValue.size
      }
    }
  } else {
    for _ in 0..<passes {
      for bytes in packed.buffers { checksum &+= operation(bytes) }
    }
  }
  return checksum
}

/// The signatures of the file named at `position` in the arguments, or the corpus when there is none.
func signatures(argumentAt position: Int) throws -> [String] {
  if CommandLine.arguments.count > position {
    return try String(contentsOfFile: CommandLine.arguments[position], encoding: .utf8)
      .split(separator: "\n").map(String.init)
  }
  return try Corpus.load().map(\.signature)
}

if let flag = CommandLine.arguments.firstIndex(of: "--held") {
  do {
    let texts = try signatures(argumentAt: flag + 1)
    var textBytes = 0
    var held = 0
    var parsed = 0
    for text in texts {
      guard let signature = try? CompactSignature(parsing: text) else { continue }
      textBytes += text.utf8.count
      held += signature.storageSize
      parsed += 1
    }
    let perText = Double(textBytes) / Double(max(parsed, 1))
    let perSignature = Double(held) / Double(max(parsed, 1))
    print(
      String(
        format: "%d signatures: text %.1f bytes, compact storage %.1f bytes (%.1f× the text)", parsed, perText,
        perSignature, perSignature / perText))
    exit(0)
  } catch {
    FileHandle.standardError.write(Data("corpus-check: \(error)\n".utf8))
    exit(1)
  }
}

if let flag = CommandLine.arguments.firstIndex(of: "--repeat"), CommandLine.arguments.count > flag + 2,
  let passes = Int(CommandLine.arguments[flag + 2])
{
  let mode = CommandLine.arguments[flag + 1]
  do {
    let packed = PackedSignatures(try signatures(argumentAt: flag + 3))
    let checksum = runPasses(mode, passes, over: packed)
    print("\(mode) \(passes) passes over \(packed.count) signatures, checksum \(checksum)")
    exit(0)
  } catch {
    FileHandle.standardError.write(Data("corpus-check: \(error)\n".utf8))
    exit(1)
  }
}

if let flag = CommandLine.arguments.firstIndex(of: "--bench"), CommandLine.arguments.count > flag + 3,
  let repeats = Int(CommandLine.arguments[flag + 2]), repeats > 0
{
  let mode = CommandLine.arguments[flag + 1]
  do {
    let packed = PackedSignatures(try signatures(argumentAt: flag + 3))
    guard packed.count > 0 else {
      print("ours\t0\tnan\tnan\tnan")
      exit(0)
    }
    let clock = ContinuousClock()
    /// Nanoseconds per signature over `passes` passes.
    func timed(_ passes: Int) -> Double {
      var checksum = 0
      let elapsed = clock.measure { checksum = runPasses(mode, passes, over: packed) }
      benchSink = checksum
      let (seconds, attoseconds) = elapsed.components
      return (Double(seconds) * 1e9 + Double(attoseconds) / 1e9) / Double(passes * packed.count)
    }
    // Calibrated as the peers' drivers are: passes per repeat so that a repeat lasts about 0.2 s,
    // measured after a first pass (first-use costs) over at least 10 ms.
    _ = timed(1)
    var probe = 1
    var perSignature = timed(probe)
    while perSignature * Double(packed.count * probe) < 1e7, probe < 1 << 20 {
      probe *= 2
      perSignature = timed(probe)
    }
    let passes = max(1, Int(2e8 / (perSignature * Double(packed.count))))
    let samples = (0..<repeats).map { _ in timed(passes) }.sorted()
    let format = { (value: Double) in String(format: "%.1f", value) }
    print(
      "ours\t\(packed.count)\t\(format(samples[repeats / 2]))\t\(format(samples[0]))\t\(format(samples[repeats - 1]))")
    exit(0)
  } catch {
    FileHandle.standardError.write(Data("corpus-check: \(error)\n".utf8))
    exit(1)
  }
}

let summaryOnly = CommandLine.arguments.contains("--summary")
do {
  let entries = try Corpus.load()
  var counts: [String: Int] = [:]
  var output = ""
  for entry in entries {
    let (status, reason) = verdict(entry)
    counts[status, default: 0] += 1
    if !summaryOnly { output += "\(entry.id)\t\(status)\t\(reason)\n" }
  }
  if summaryOnly {
    let answered = entries.count - counts["ERROR", default: 0]
    output =
      "total \(entries.count) answered \(answered) correct \(counts["OK", default: 0]) "
      + "estimate \(counts["ESTIMATE", default: 0]) wrong \(counts["WRONG", default: 0])\n"
  }
  FileHandle.standardOutput.write(Data(output.utf8))
} catch {
  FileHandle.standardError.write(Data("corpus-check: \(error)\n".utf8))
  exit(1)
}
