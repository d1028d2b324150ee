// Runs of offset digits that hold several offsets (`v24@?08`: the `08` is a vector parameter's
// offset, 0, then the next one's, 8), split without allocating.

/// The offsets written after one argument's type.
enum OffsetRun {
  /// One offset, or none.
  case single(SignatureEncoding.Offset?)
  /// The typed argument's offset, then those of the unencodable parameters after it, are in
  /// the caller's `OffsetPieces`; `last` is the last of them.
  case split(last: Int)

  /// The last offset written, if any.
  var last: Int? {
    switch self {
    case .single(let offset): offset?.value
    case .split(let last): last
    }
  }
}

/// A small fixed-capacity list of offsets read from one digit run (no heap allocation).
struct OffsetPieces {
  static let capacity = 40
  private var storage:
    (
      Int, Int, Int, Int, Int, Int, Int, Int, Int, Int,
      Int, Int, Int, Int, Int, Int, Int, Int, Int, Int,
      Int, Int, Int, Int, Int, Int, Int, Int, Int, Int,
      Int, Int, Int, Int, Int, Int, Int, Int, Int, Int
    ) =
      (
        0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
        0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0
      )
  private(set) var count = 0

  subscript(index: Int) -> Int {
    withUnsafeBytes(of: storage) { $0.load(fromByteOffset: index * MemoryLayout<Int>.stride, as: Int.self) }
  }

  mutating func append(_ value: Int) {
    let index = count
    withUnsafeMutableBytes(of: &storage) {
      $0.storeBytes(of: value, toByteOffset: index * MemoryLayout<Int>.stride, as: Int.self)
    }
    count += 1
  }

  mutating func removeLast() { count -= 1 }

  /// Forgets every offset (the storage is not cleared).
  mutating func removeAll() { count = 0 }
}

/// Splits a run of offset digits such as `812` into the typed parameter's offset and the offsets
/// of unencodable parameters that follow it (`8`, `12`).
///
/// The whole run is one offset when that reading is possible: no leading zero, within the frame
/// and not below the previous offset. Otherwise the run is read as increasing offsets, each
/// without a leading zero and within the frame, preferring longer first pieces. The second piece
/// may equal the first when the typed parameter has size 0 (`{S=[0s]}88`: a zero-size structure
/// at 8 followed by a vector at 8). When no split fits, the whole run is kept as one offset
/// (validation reports it later).
struct OffsetRunSplitter {
  let digits: UnsafeBufferPointer<UInt8>
  let previous: Int?
  let frame: Int?

  /// Splits the run into `pieces`; `firstHasZeroSize` is asked only when a second piece equals
  /// the first (whether the typed parameter occupies no bytes, so the next one shares its offset).
  func split(into pieces: inout OffsetPieces, firstHasZeroSize: () -> Bool) -> Bool {
    if let whole = wholeValue() {
      pieces.append(whole)
      return true
    }
    var failures = FailureMemo()
    if digits.count <= OffsetPieces.capacity,
      splitRest(from: 0, previousLength: 0, into: &pieces, failures: &failures, firstHasZeroSize: firstHasZeroSize)
    {
      return true
    }
    // No consistent reading: split only where the digits force it (a `0` cannot start a longer
    // number), so printing gives the same bytes back; validation reports the offsets.
    pieces.removeAll()
    var start = 0
    while start < digits.count - 1, digits[start] == 0x30, pieces.count < OffsetPieces.capacity - 1 {
      pieces.append(0)
      start += 1
    }
    guard let rest = value(start..<digits.count), start == digits.count - 1 || digits[start] != 0x30 else {
      return false
    }
    pieces.append(rest)
    return true
  }

  /// The whole run as one offset, when that reading is allowed.
  @inline(__always)
  func wholeValue() -> Int? {
    guard let whole = value(0..<digits.count), isAllowedFirst(whole, length: digits.count) else { return nil }
    return whole
  }

  private func isAllowedFirst(_ value: Int, length: Int) -> Bool {
    if length > 1, digits[0] == 0x30 { return false }
    if let frame, value > frame { return false }
    if let previous, value < previous { return false }
    return true
  }

  /// Failed (start, previous piece length) states, so the search stays polynomial.
  struct FailureMemo {
    private var bits:
      (
        UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64,
        UInt64, UInt64, UInt64, UInt64, UInt64, UInt64
      ) = (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
    subscript(start: Int, previousLength: Int) -> Bool {
      get {
        let index = start * 20 + previousLength
        return withUnsafeBytes(of: bits) {
          $0.load(fromByteOffset: (index / 64) * 8, as: UInt64.self) & (1 << UInt64(index % 64)) != 0
        }
      }
      set {
        let index = start * 20 + previousLength
        withUnsafeMutableBytes(of: &bits) {
          var word = $0.load(fromByteOffset: (index / 64) * 8, as: UInt64.self)
          if newValue { word |= 1 << UInt64(index % 64) } else { word &= ~(1 << UInt64(index % 64)) }
          $0.storeBytes(of: word, toByteOffset: (index / 64) * 8, as: UInt64.self)
        }
      }
    }
  }

  private func splitRest(
    from start: Int, previousLength: Int, into pieces: inout OffsetPieces, failures: inout FailureMemo,
    firstHasZeroSize: () -> Bool
  ) -> Bool {
    if start == digits.count { return pieces.count >= 2 }
    if failures[start, previousLength] { return false }
    let remaining = digits.count - start
    let maximumLength = digits[start] == 0x30 ? 1 : min(remaining, 19)
    var length = maximumLength
    while length >= 1 {
      defer { length -= 1 }
      if length == digits.count { continue }
      guard let piece = value(start..<start + length) else { continue }
      if pieces.count == 0 {
        if let previous, piece < previous { continue }
        if let frame, piece > frame { continue }
      } else {
        let last = pieces[pieces.count - 1]
        if piece < last || (piece == last && (pieces.count != 1 || !firstHasZeroSize())) { continue }
        if let frame, piece >= frame { continue }
      }
      pieces.append(piece)
      if splitRest(
        from: start + length, previousLength: length, into: &pieces, failures: &failures,
        firstHasZeroSize: firstHasZeroSize)
      {
        return true
      }
      pieces.removeLast()
    }
    failures[start, previousLength] = true
    return false
  }

  private func value(_ range: Range<Int>) -> Int? {
    var result = 0
    for index in range {
      let (times10, o1) = result.multipliedReportingOverflow(by: 10)
      let (sum, o2) = times10.addingReportingOverflow(Int(digits[index] &- 0x30))
      if o1 || o2 { return nil }
      result = sum
    }
    return result
  }
}
