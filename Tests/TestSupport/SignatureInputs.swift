// Signature inputs shared by the tests that compare the readers: the benchmark corpus clang
// wrote, random byte strings over the grammar's alphabet, and nesting at the depth limit.

import Foundation

/// The signatures of the benchmark corpus (`Benchmarks/Corpus/signatures.tsv`, third column):
/// 3000 block and 1200 method signatures clang wrote.
package func benchmarkCorpusSignatures() throws -> [String] {
  let url = Toolchain.packageRoot.appendingPathComponent("Benchmarks/Corpus/signatures.tsv")
  var signatures: [String] = []
  for line in try String(contentsOf: url, encoding: .utf8).split(separator: "\n") where !line.hasPrefix("#") {
    let columns = line.split(separator: "\t", omittingEmptySubsequences: false)
    if columns.count >= 3 { signatures.append(String(columns[2])) }
  }
  return signatures
}

/// `count` random inputs of 1 to 24 parts, each a byte of the grammar's alphabet or one of
/// `pieces` (whole types and offsets), from `rng`.
package func randomSignatureInputs(count: Int, pieces extra: [String] = [], using rng: inout SeededRandom)
  -> [[UInt8]]
{
  let alphabet = Array("0123456789012345678901234567890123456789+-@?:#*^[]{}()=\"<>bjArnNoORVcislqCISLQtTfdDBv %".utf8)
  let pieces =
    [
      "@?", "@?0", "i8", "{S=ii}", "{S}", "[4c]", "[0s]", "b3", "b0i3", "^v", "r*", "@\"NSString\"", "D", " ", "(U=ci)",
      "88", "816",
    ] + extra
  return (0..<count).map { _ in
    var bytes: [UInt8] = []
    for _ in 0..<Int.random(in: 1...24, using: &rng) {
      if Bool.random(using: &rng) {
        bytes.append(alphabet[Int.random(in: 0..<alphabet.count, using: &rng)])
      } else {
        bytes += Array(pieces[Int.random(in: 0..<pieces.count, using: &rng)].utf8)
      }
    }
    return bytes
  }
}

/// Nesting at and past the default depth limit: 150 pointers, and qualifiers alone (each one a
/// level, as the parser counts them) at the top and inside a structure.
package let nestingLimitInputs: [[UInt8]] = {
  var inputs: [[UInt8]] = [Array(repeating: UInt8(ascii: "^"), count: 150) + [UInt8(ascii: "i")]]
  let qualified: [(prefix: String, count: Int)] = [
    ("v@?", 99), ("v@?", 100), ("v@?", 150), ("v@?{S=", 99), ("v@?{S=", 150),
  ]
  for (prefix, count) in qualified {
    let closing = prefix.hasSuffix("=") ? "}" : ""
    inputs.append(Array((prefix + String(repeating: "r", count: count) + "i" + closing).utf8))
  }
  return inputs
}()
