// The one way this package writes a number in hexadecimal, for messages and reports.

extension BinaryInteger {
  /// The value in lower-case hexadecimal: `0x1f`, `-0x10` for a negative value, at least
  /// `digits` digits (zero-padded), without `0x` when `prefixed` is false (`0a`).
  ///
  ///     255.hexadecimal()                       // "0xff"
  ///     UInt8(10).hexadecimal(digits: 2)        // "0x0a"
  ///     UInt8(10).hexadecimal(digits: 2, prefixed: false)  // "0a"
  package func hexadecimal(digits: Int = 1, prefixed: Bool = true) -> String {
    let magnitude = self.magnitude
    var text = String(magnitude, radix: 16)
    if text.count < digits { text = String(repeating: "0", count: digits - text.count) + text }
    return (self < 0 ? "-" : "") + (prefixed ? "0x" : "") + text
  }
}
