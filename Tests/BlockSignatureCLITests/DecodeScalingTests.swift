import Foundation
import TestSupport
import Testing

/// `blocksig decode` takes time linear in its input: one 1 MB list of types costs about what
/// a thousand 1 KB lists cost, in text and in JSON.
@Suite(.serialized) struct DecodeScalingTests {
  /// A list of types (no block, no offsets): the form whose rows are laid out one per type.
  static let unit = "{P=dic}^v*[4i]"

  /// ``unit`` repeated to about `bytes` bytes, as one line.
  static func typeList(bytes: Int) -> String {
    String(repeating: unit, count: bytes / unit.utf8.count)
  }

  /// Runs `blocksig decode ARGUMENTS < input` with stdout discarded, killed after `limit`
  /// seconds (status 137: `SIGKILL`, which a test runner's ignored `SIGTERM` cannot stop); returns the wall time and the exit status.
  static func timedDecode(
    _ arguments: [String], input: String, limit: Double = 600
  ) throws -> (seconds: Double, status: Int32) {
    let directory = try Toolchain.temporaryDirectory("blocksig-scaling")
    defer { try? FileManager.default.removeItem(at: directory) }
    let file = directory.appendingPathComponent("input.txt")
    try input.write(to: file, atomically: true, encoding: .utf8)
    let script = #"exec timeout -s KILL "$LIMIT" "$0" decode "$@" < "$INPUT" > /dev/null"#
    let clock = ContinuousClock()
    var output: Toolchain.Output?
    let elapsed = try clock.measure {
      output = try Toolchain.run(
        "/bin/sh", ["-c", script, Toolchain.blocksig] + arguments,
        environment: ["INPUT": file.path, "LIMIT": String(format: "%.1f", limit)])
    }
    let result = try #require(output)
    #expect(result.stderr == "")
    return (Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) * 1e-18, result.status)
  }

  /// The time of one 1 MB input is capped at 10 times the time of a thousand 1 KB inputs (the
  /// same bytes): linear work gives about 1, work quadratic in a line's length about 1,000.
  @Test(arguments: [[], ["--json"]])
  func oneMegabyteCostsAboutAThousandKilobytes(arguments: [String]) throws {
    let kilobyte = Self.typeList(bytes: 1_000)
    let megabyte = Self.typeList(bytes: 1_000_000)
    let small = try Self.timedDecode(arguments, input: String(repeating: kilobyte + "\n", count: 1_000))
    // Stopped past the cap, so a regression fails in seconds rather than running for hours.
    let large = try Self.timedDecode(arguments, input: megabyte + "\n", limit: 10 * small.seconds + 1)
    #expect(small.status == 0)
    #expect(large.status == 0, "status 137: stopped after \(10 * small.seconds + 1) s")
    #expect(
      large.seconds <= 10 * small.seconds,
      "1 MB took \(large.seconds) s, a thousand 1 KB inputs \(small.seconds) s")
  }
}
