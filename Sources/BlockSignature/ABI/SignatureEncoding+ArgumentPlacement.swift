// Every argument's place in a call, walked with one `PlacementState`.

extension SignatureEncoding {
  /// Where a call puts each argument on `model`: in which registers, or where on the stack.
  ///
  ///     try SignatureEncoding(parsing: "s@?qqqqqqqsc").argumentPlacement(for: .arm64Apple).arguments[8...]
  ///     // [.stack(offset: 0, size: 2), .stack(offset: 2, size: 1)]: Apple packs stack arguments
  ///
  /// See ``ArgumentPlacement`` for the rules of each calling convention.
  /// - Complexity: O(*n*) in the size of the signature.
  public func argumentPlacement(for model: DataModel = .x86_64SysV) -> ArgumentPlacement {
    var state = PlacementState(model: model)
    let returnsInMemory = PlacementState.returnsInMemory(returnType, model: model)
    var places: [ArgumentPlacement.Place] = []
    places.reserveCapacity(arguments.count)
    var known = state.placeReturn(inMemory: returnsInMemory)
    for (index, argument) in arguments.enumerated() {
      guard known, let place = state.place(argument.type, writtenSlot: writtenSlot(ofArgument: index)) else {
        known = false
        places.append(.unknown)
        continue
      }
      places.append(place)
    }
    return ArgumentPlacement(
      model: model, returnsInMemory: returnsInMemory, arguments: places, stackSize: known ? state.stack : nil)
  }
}
