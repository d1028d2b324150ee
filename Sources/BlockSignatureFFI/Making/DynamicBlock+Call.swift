// The view a handler gets of one call of a made block.

import BlockSignature

extension DynamicBlock {
  /// One call of a made block as its handler sees it; valid only while the handler runs.
  /// Parameters are numbered from 0, the block itself left out.
  ///
  ///     let made = try DynamicBlock(signature: "d16@?0d8") { call in
  ///       let x = call.argumentAddress(0).load(as: Double.self)
  ///       call.result.storeBytes(of: x * 2, as: Double.self)
  ///     }
  public struct Call {
    /// What the block captures, which lives while the handler runs.
    let captures: UnsafeMutablePointer<MadeBlockCaptures>
    /// The block being called (the first argument C passed).
    public let block: UnsafeRawPointer
    let argumentPointers: UnsafeMutablePointer<UnsafeMutableRawPointer?>
    /// Where the return value goes: ``resultSize`` bytes, zeroed before the handler runs. A
    /// narrow integer written here is widened afterwards as the ABI wants.
    public let result: UnsafeMutableRawPointer
    /// The number of parameters, the block itself not counted.
    public let argumentCount: Int
    /// The plan's table of where each parameter is among `argumentPointers` (-1: not passed).
    let passedSlots: UnsafeMutablePointer<Int>

    init(
      captures: UnsafeMutablePointer<MadeBlockCaptures>, block: UnsafeRawPointer,
      argumentPointers: UnsafeMutablePointer<UnsafeMutableRawPointer?>,
      result: UnsafeMutableRawPointer, argumentCount: Int, passedSlots: UnsafeMutablePointer<Int>
    ) {
      self.captures = captures
      self.block = block
      self.argumentPointers = argumentPointers
      self.result = result
      self.argumentCount = argumentCount
      self.passedSlots = passedSlots
    }

    var interface: CallInterface { captures.pointee.interface }
    var strings: CStringTable? { captures.pointee.strings }

    /// The ``DynamicDelegate/context`` of the delegate whose member the block implements (made
    /// by one of its `implement` methods that take a handler), or nil for a block made on its
    /// own. It is the delegate's whether or not C passed it to this call.
    public var context: UnsafeMutableRawPointer? { captures.pointee.context }

    /// The block's signature.
    public var signature: MethodSignature { interface.signature }

    /// The bytes of the return value (0 for `void`).
    public var resultSize: Int { interface.returnShape.size }

    /// The address of parameter `index`'s bytes, laid out as C lays the type out.
    ///
    /// - Precondition: `0 <= index < argumentCount`.
    public func argumentAddress(_ index: Int) -> UnsafeRawPointer {
      precondition(index >= 0 && index < argumentCount, "argument \(index) of \(argumentCount)")
      let passed = passedSlots[index]
      guard passed >= 0, let address = argumentPointers[passed] else {
        return UnsafeRawPointer(ZeroSizeArgument.address)
      }
      return UnsafeRawPointer(address)
    }

    /// Parameter `index` as a typed value (a union reads as its first member, a `char *` as a
    /// string; ``argument(_:unionMember:)`` reads a union as another member).
    public func argument(_ index: Int) -> CValue {
      interface.argumentShapes[index + 1].load(from: argumentAddress(index))
    }

    /// Parameter `index` as a typed value, each union in it read as the member `unionMember`
    /// picks for its path (`[]` for a union parameter itself; see
    /// ``CValue/init(loading:from:model:unionMember:)``).
    ///
    ///     // void (^)(union { int i; float f; }, int which)
    ///     let which = Int(call.argumentAddress(1).load(as: Int32.self))
    ///     let value = try call.argument(0) { _ in which }
    ///
    /// - Throws: ``InvocationError`` with ``InvocationError/Kind/outOfRange`` when the chooser
    ///   picks a member the union does not have.
    public func argument(_ index: Int, unionMember: (_ path: [String]) -> Int) throws(InvocationError) -> CValue {
      do throws(ValueError) {
        return try withoutActuallyEscaping(unionMember) { chooser throws(ValueError) in
          try interface.argumentShapes[index + 1].load(from: argumentAddress(index), path: [], unionMember: chooser)
        }
      } catch {
        throw InvocationError(kind: error.kind, argument: index, path: error.path, message: error.message)
      }
    }

    /// Every parameter as a typed value.
    public var arguments: [CValue] {
      (0..<argumentCount).map(argument)
    }

    /// Writes `value` as the return value, checked against the return type. A string is copied
    /// into memory the block keeps (one copy per distinct text) so that C can read it after
    /// the call.
    ///
    /// - Throws: ``InvocationError`` (``InvocationError/Kind/typeMismatch`` or
    ///   ``InvocationError/Kind/outOfRange``) naming the return value; the result is then zero.
    public func setResult(_ value: CValue) throws(InvocationError) {
      let shape = interface.returnShape
      result.initializeMemory(as: UInt8.self, repeating: 0, count: shape.resultBytes)
      var arena = CStringArena(interningIn: strings)
      do throws(ValueError) {
        try shape.store(value, at: result, strings: &arena, path: ["return value"])
      } catch {
        result.initializeMemory(as: UInt8.self, repeating: 0, count: shape.resultBytes)
        throw InvocationError(kind: error.kind, path: error.path, message: error.message)
      }
    }
  }
}
