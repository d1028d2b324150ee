// Strings a made block returns to C: C reads them after the handler has returned, so they live
// as long as the block, one copy per distinct text.

/// Interned NUL-terminated copies of strings, freed with the table.
import BlockSignatureSystem

final class CStringTable: Sendable {
  private let strings = Locked<[String: UnsafeMutablePointer<CChar>]>([:])

  /// The table's copy of `text`, made on first use; the same text gives the same pointer.
  func pointer(for text: String) -> UnsafeMutablePointer<CChar> {
    strings.withLock { strings in
      if let known = strings[text] { return known }
      let made = CStringArena.duplicate(text)
      strings[text] = made
      return made
    }
  }

  /// The number of distinct strings held.
  var count: Int { strings.withLock { $0.count } }

  deinit {
    strings.withLock { strings in
      for pointer in strings.values { pointer.deallocate() }
    }
  }
}
