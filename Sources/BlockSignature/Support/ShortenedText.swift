// How a message quotes a value of any length.

/// The most bytes of a value a message quotes whole (the excerpt under a diagnostic is as wide).
package let shortenedWidth = 100

/// `text` as a diagnostic quotes a value: whole when it is at most `width` bytes, otherwise
/// its first and last `width / 2` bytes around `…`, and its length (`123…789 (100000
/// bytes)`, unless `showingLength` is false), so a megabyte argument does not become a
/// megabyte of message. Never cuts inside a UTF-8 sequence.
package func shortened(_ text: String, width: Int = shortenedWidth, showingLength: Bool = true) -> String {
  let bytes = Array(text.utf8)
  guard bytes.count > width else { return text }
  var head = width / 2
  var tail = bytes.count - width / 2
  while head > 0, bytes[head] & 0xC0 == 0x80 { head -= 1 }
  while tail < bytes.count, bytes[tail] & 0xC0 == 0x80 { tail += 1 }
  return String(decoding: bytes[..<head], as: UTF8.self) + "…" + String(decoding: bytes[tail...], as: UTF8.self)
    + (showingLength ? " (\(bytes.count) bytes)" : "")
}
