import BlockSignature

/// One place where a value (an address) is put into a register or a stack slot.
struct AddressLoad {
  /// The instruction that loads the value (or, for an immediate store, stores it).
  var pc: UInt64
  var value: UInt64
  /// Where the value is then stored: base registers and displacements (AArch64 code may
  /// store a value twice, in a spill slot and in the literal).
  var slots = Slots()
  /// The register loaded and where the next instruction starts, for a store found later or
  /// in a callee (``ConstructionSiteScan/laterStore(of:before:)``,
  /// ``ConstructionSiteScan/calleeSlots(of:)``); no register for an x86 immediate store.
  var register: UInt8? = nil
  var next: UInt64 = 0

  struct Slot: Hashable {
    var base: UInt8
    var displacement: Int64

    /// The slot a word before this one.
    var wordBefore: Slot { Slot(base: base, displacement: displacement &- 8) }
  }

  /// Up to four slots, kept inline: a load is made for every address the code loads, and an
  /// array each would cost an allocation each.
  struct Slots {
    private var first: Slot?
    private var second: Slot?
    private var third: Slot?
    private var fourth: Slot?

    var isEmpty: Bool { first == nil }

    /// Adds `slot`, unless four are kept already.
    mutating func append(_ slot: Slot) {
      if first == nil {
        first = slot
      } else if second == nil {
        second = slot
      } else if third == nil {
        third = slot
      } else if fourth == nil {
        fourth = slot
      }
    }

    /// The slots kept, in the order added.
    var all: [Slot] { [first, second, third, fourth].compactMap { $0 } }

    func contains(_ slot: Slot) -> Bool {
      first == slot || second == slot || third == slot || fourth == slot
    }

    /// Whether some slot of `other` is a word after one of these.
    func precedes(_ other: Slots) -> Bool {
      func before(_ slot: Slot?) -> Bool { slot.map { contains($0.wordBefore) } ?? false }
      return before(other.first) || before(other.second) || before(other.third) || before(other.fourth)
    }
  }
}
