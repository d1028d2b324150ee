// The offsets of a signature: the frame length after the return type, and after each argument
// its offset, or a run of digits that holds several (`v24@?08`: an unencodable parameter's).

extension EncodingReader {
  /// An offset at `index`: digits, `+digits` (a register) or `-digits`; `nil` when none is
  /// there. `.some(nil)` means no offset; plain `nil` an error.
  mutating func readSingleOffset() -> SignatureEncoding.Offset?? {
    let start = index
    guard let byte = byte(at: index) else { return .some(nil) }
    let isRegister = byte == 0x2B  // +
    let isNegative = byte == 0x2D  // -
    if isRegister || isNegative {
      index &+= 1
      guard isDigit(self.byte(at: index)) else {
        _ = fail(.invalidOffset, at: start)
        return nil
      }
    } else if !isDigit(byte) {
      return .some(nil)
    }
    let digitsStart = index
    // An overflow first, then a leading zero.
    guard let magnitude = readNumber(allowingLeadingZero: true) else { return nil }
    if index &- digitsStart > 1, base[digitsStart] == 0x30 {
      _ = fail(.invalidNumber, at: digitsStart)
      return nil
    }
    guard magnitude <= UInt64(Int.max) else {
      _ = fail(.countOverflow, at: start)
      return nil
    }
    if isNegative && magnitude == 0 {
      _ = fail(.invalidOffset, at: start)
      return nil
    }
    return .some(SignatureEncoding.Offset(isNegative ? -Int(magnitude) : Int(magnitude), isRegister: isRegister))
  }

  /// The offset or offsets after an argument, given the `previous` offset and the `frame`
  /// length (when written): one offset, or a run split into `pieces` where one number would
  /// not fit. `firstHasZeroSize` says whether the argument takes no bytes (asked only for a
  /// run that needs it). `nil` on an error.
  @inline(__always)
  mutating func readOffsetRun(
    previous: Int?, frame: Int?, pieces: inout OffsetPieces, firstHasZeroSize: () -> Bool
  ) -> OffsetRun? {
    let runStart = index
    guard index < count, isDigit(base[index]) else {
      // No offset, or a signed one (never split).
      guard let offset = readSingleOffset() else { return nil }
      return .single(offset)
    }
    let position = digitRun(from: index).end
    index = position
    let splitter = OffsetRunSplitter(
      digits: UnsafeBufferPointer(start: base + runStart, count: position &- runStart), previous: previous,
      frame: frame)
    // The common case, one offset, needs no piece list.
    if let whole = splitter.wholeValue() { return .single(SignatureEncoding.Offset(whole)) }
    pieces.removeAll()
    guard splitter.split(into: &pieces, firstHasZeroSize: firstHasZeroSize) else {
      _ = fail(.countOverflow, at: runStart)
      return nil
    }
    return .split(last: pieces[pieces.count - 1])
  }

  /// A run of offset digits read as one offset when the rule allows it at once (no leading
  /// zero, not above `frame`, not below `previous`, at most 18 digits so that the loop needs no
  /// overflow check); otherwise `nil`, with `index` after the run, for ``readOffsetRun``, which
  /// reads longer runs with the checks. `previous` and `frame` are -1 when there is none. The
  /// caller has seen a digit at `index`.
  @inline(__always)
  mutating func wholeOffset(previous: Int, frame: Int) -> Int? {
    let start = index
    let (position, digits) = digitRun(from: start)
    index = position
    // More than one digit: no leading zero, and at most 18 (so that the value fits).
    if position &- start > 1, base[start] == 0x30 || position &- start > 18 { return nil }
    let value = Int(truncatingIfNeeded: digits)
    // Not above `frame` (-1, none, is above every offset as an unsigned number), not below
    // `previous`; `value` is not negative.
    if UInt(bitPattern: value) > UInt(bitPattern: frame) || value < previous { return nil }
    return value
  }
}
