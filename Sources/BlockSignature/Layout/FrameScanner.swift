// `SignatureFrame`'s own path: the one reader (`EncodingReader`) measuring into `FrameMeasure`,
// with a stack in the caller's frame for each, so nothing is allocated but the arguments' array.
// The reader's errors are reported as they are (the tree parser would report the same). It hands
// over to the tree (`SignatureEncoding` and its layout) for anything else it does not finish: a
// size that overflows, a signed offset, an offset run with no consistent reading, nesting deeper
// than its stacks or more arguments than its buffers. Both lay out with the shared `LayoutRules`,
// `AggregateLayout` and `ArgumentOffsets`, so they give the same numbers (`SignatureFrameTests`
// compares them on the corpus, the fixtures and random inputs; the `FuzzSignature` target does
// too).
//
// FrameScanner+Signature reads the signature: return type, frame length, arguments and offsets.

/// The reader and the measure of one signature; every method returns `false` (or `nil`) to hand
/// over to the tree.
struct FrameScanner {
  var reader: EncodingReader
  var measure: FrameMeasure

  @inline(__always)
  init(reader: EncodingReader, measure: FrameMeasure) {
    self.reader = reader
    self.measure = measure
  }

  var base: UnsafePointer<UInt8> { reader.base }
  var count: Int { reader.count }
  var rules: LayoutRules { measure.rules }

  @inline(__always)
  var index: Int {
    get { reader.index }
    set { reader.index = newValue }
  }
}
