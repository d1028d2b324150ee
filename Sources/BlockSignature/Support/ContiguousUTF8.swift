// Every reader works on UTF-8 bytes; a `String` given to one is read through this.

/// Calls `body` with the UTF-8 bytes of `text` (made contiguous first when they are not, as
/// for a bridged string), and hands on its result or its typed error.
///
///     let count = try withContiguousUTF8("i20@?0") { bytes throws(EncodingError) in bytes.count }
@inline(__always)
func withContiguousUTF8<Value, Failure: Error>(
  _ text: String, _ body: (UnsafeBufferPointer<UInt8>) throws(Failure) -> Value
) throws(Failure) -> Value {
  var text = text
  let result: Result<Value, Failure> = text.withUTF8 { bytes in
    Result { () throws(Failure) -> Value in try body(bytes) }
  }
  return try result.get()
}
