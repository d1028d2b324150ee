// One binary search for the scanner's sorted tables (sections, fixups, symbols, strings).

import BlockSignature

extension RandomAccessCollection where Index == Int {
  /// The index of the first element for which `isBelow` is false, in a collection where every
  /// element for which it is true comes first (`count` when it is true for all).
  ///
  ///     [1, 3, 5, 7].partitionPoint { $0 < 5 }  // 2
  ///     [1, 3, 5, 7].partitionPoint { $0 <= 5 }  // 3: the last element at or below 5 is at 2
  @inline(__always)
  func partitionPoint(_ isBelow: (Element) -> Bool) -> Int {
    var low = startIndex
    var high = endIndex
    while low < high {
      let mid = low + (high - low) / 2
      if isBelow(self[mid]) { low = mid + 1 } else { high = mid }
    }
    return low
  }
}
