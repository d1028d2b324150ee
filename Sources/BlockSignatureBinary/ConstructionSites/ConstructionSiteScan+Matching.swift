// Matching each descriptor load with the invoke stored beside it.

import BlockSignature

extension ConstructionSiteScan {
  /// Finds each descriptor load's invoke, keeping what the loads share: one buffer of nearby
  /// loads, and the count of backward traces (bounded by ``traceLimit``).
  struct Matcher {
    let scan: ConstructionSiteScan
    private var nearby: [AddressLoad] = []
    private var traces = 0
    /// Sites whose invoke was not traced back because ``traceLimit`` were already.
    private(set) var untraced = 0

    init(scan: ConstructionSiteScan) { self.scan = scan }

    /// The invoke stored beside the descriptor `load` puts into a literal, and how it was
    /// found: the code address stored a word before the descriptor, (1) in the window around
    /// the load, the descriptor stored at once or later (a loop's register); (2) loaded into a
    /// register long before (traced back); (3) when the descriptor is passed to the code a
    /// call or jump leads to, stored there: before the jump (a shared tail) or in the callee
    /// (a merged function). Nil when none is found: no guess is made.
    mutating func invoke(
      of descriptor: AddressLoad, functionStart: UInt64?, functionEnd: UInt64?
    ) -> (load: AddressLoad, match: BlockConstructionSite.InvokeMatch)? {
      var load = descriptor
      // Past a jump, the bytes that follow are another path's: a later store is looked for
      // only when the load is not passed on.
      let passed = scan.calleeSlots(of: load)
      if passed == nil, let slot = scan.laterStore(of: load, before: functionEnd ?? .max) {
        load.slots.append(slot)
      }
      let window = ConstructionSiteScan.window
      let low = max(load.pc >= window ? load.pc - window : 0, functionStart ?? 0)
      let high = min(load.pc &+ window < load.pc ? .max : load.pc + window, functionEnd ?? .max)
      scan.codeLoads(around: load.pc, low: low, high: high, into: &nearby)
      if !load.slots.isEmpty {
        for position in nearby.indices where nearby[position].slots.isEmpty {
          if let slot = scan.laterStore(of: nearby[position]) { nearby[position].slots.append(slot) }
        }
        // (1) The closest code address stored a word before the descriptor.
        var best: AddressLoad?
        for candidate in nearby where candidate.slots.precedes(load.slots) {
          let distance = candidate.pc.distance(to: load.pc).magnitude
          if let found = best, found.pc.distance(to: load.pc).magnitude <= distance { continue }
          best = candidate
        }
        if let best { return (best, .slot) }
        // (2) Traced back.
        guard traces < ConstructionSiteScan.traceLimit else {
          untraced += 1
          return nil
        }
        traces += 1
        if scan.decodesRegisters {
          // The decode from further back keeps the invoke in its register to the store.
          let back = ConstructionSiteScan.traceWindow
          let wide = max(functionStart ?? 0, load.pc >= back ? load.pc - back : 0)
          scan.codeLoads(around: load.pc, low: wide, high: high, into: &nearby)
          if let traced = nearby.last(where: { $0.slots.precedes(load.slots) }) { return (traced, .slot) }
        } else {
          for slot in load.slots.all {
            if let traced = scan.tracedLoad(into: slot.wordBefore, before: load.pc, after: functionStart ?? 0) {
              return (traced, .slot)
            }
          }
        }
      }
      // (3) Passed on.
      guard let (callee, slots) = passed else { return nil }
      if let before = nearby.last(where: { $0.pc < load.pc && $0.slots.precedes(slots) }) { return (before, .slot) }
      var calleeLoads: [AddressLoad] = []
      scan.codeLoads(around: callee, low: callee, high: callee &+ 384, into: &calleeLoads)
      for var candidate in calleeLoads {
        if candidate.slots.isEmpty, let slot = scan.laterStore(of: candidate) { candidate.slots.append(slot) }
        if candidate.slots.precedes(slots) { return (candidate, .callee) }
      }
      return nil
    }
  }
}
