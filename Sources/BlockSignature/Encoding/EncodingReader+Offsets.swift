// What a signature's written offsets mean: the frame length after the return type, and after
// each argument its offset, or a run of digits that holds several (`v24@?08`: an unencodable
// parameter's). `readWrittenOffset()` finds them; these read them.

extension EncodingReader {
  /// `offset` as one offset: `.some(nil)` when none is written, plain `nil` on an error (an
  /// overflow first, then a leading zero, then `-0`).
  @inline(__always)
  mutating func singleOffset(_ offset: WrittenOffset) -> SignatureEncoding.Offset?? {
    if offset.isAbsent { return .some(nil) }
    guard let magnitude = checkedNumber(from: offset.digitsStart, to: offset.end, wrapped: offset.digits) else {
      return nil
    }
    if offset.digitCount > 1, base[offset.digitsStart] == 0x30 {
      _ = fail(.invalidNumber, at: offset.digitsStart)
      return nil
    }
    guard magnitude <= UInt64(Int.max) else {
      _ = fail(.countOverflow, at: offset.start)
      return nil
    }
    let isNegative = offset.sign == .negative
    if isNegative && magnitude == 0 {
      _ = fail(.invalidOffset, at: offset.start)
      return nil
    }
    return .some(
      SignatureEncoding.Offset(isNegative ? -Int(magnitude) : Int(magnitude), isRegister: offset.sign == .register))
  }

  /// The offset or offsets after an argument, given the `previous` offset and the `frame`
  /// length (when written): one offset, or a run split into `pieces` where one number would
  /// not fit. `firstHasZeroSize` says whether the argument takes no bytes (asked only for a
  /// run that needs it). `nil` on an error.
  @inline(__always)
  mutating func offsetRun(
    _ offset: WrittenOffset, previous: Int?, frame: Int?, pieces: inout OffsetPieces, firstHasZeroSize: () -> Bool
  ) -> OffsetRun? {
    guard offset.sign == .none, !offset.isAbsent else {
      // No offset, or a signed one (never split).
      guard let single = singleOffset(offset) else { return nil }
      return .single(single)
    }
    let splitter = OffsetRunSplitter(
      digits: UnsafeBufferPointer(start: base + offset.start, count: offset.digitCount), previous: previous,
      frame: frame)
    // The common case, one offset, needs no piece list.
    if let whole = splitter.wholeValue() { return .single(SignatureEncoding.Offset(whole)) }
    pieces.removeAll()
    guard splitter.split(into: &pieces, firstHasZeroSize: firstHasZeroSize) else {
      _ = fail(.countOverflow, at: offset.start)
      return nil
    }
    return .split(last: pieces[pieces.count - 1])
  }

  /// A run of plain offset digits read as one offset when the rule allows it at once (no
  /// leading zero, not above `frame`, not below `previous`, at most 18 digits so that its value
  /// needs no overflow check); otherwise `nil`, for ``offsetRun(_:previous:frame:pieces:firstHasZeroSize:)``,
  /// which reads longer runs with the checks. `previous` and `frame` are -1 when there is none.
  @inline(__always)
  func wholeOffset(_ offset: WrittenOffset, previous: Int, frame: Int) -> Int? {
    let length = offset.digitCount
    // More than one digit: no leading zero, and at most 18 (so that the value fits).
    if length > 1, base[offset.digitsStart] == 0x30 || length > 18 { return nil }
    let value = Int(truncatingIfNeeded: offset.digits)
    // Not above `frame` (-1, none, is above every offset as an unsigned number), not below
    // `previous`; `value` is not negative.
    if UInt(bitPattern: value) > UInt(bitPattern: frame) || value < previous { return nil }
    return value
  }
}
