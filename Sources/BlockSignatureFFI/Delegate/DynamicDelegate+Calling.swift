// Swift's side of the table: calling a member with typed values (`forwardInvocation:`'s role),
// and reading and writing data members.

import BlockSignature
import CFFI

extension DynamicDelegate {
  /// Calls what the table holds for `member` (its block, or the real delegate's function) with
  /// one ``CValue`` per parameter, the context included, as C would call it.
  ///
  ///     try delegate.call("add", [.pointer(UInt(bitPattern: delegate.context)), .signed(2), .signed(3)])  // .signed(5)
  ///
  /// - Throws: `DelegateError`: an unknown or data member, `DelegateError/Kind/unimplemented`
  ///   when the table holds NULL there, a wrong argument count or value.
  public func call(_ member: String, _ arguments: [CValue]) throws(DelegateError) -> CValue {
    let slot = try self.slot(member)
    guard let function = try self.function(for: member) else {
      throw DelegateError(kind: .unimplemented, member: member, message: "the table holds NULL for \(member)")
    }
    let interface = slot.interface
    guard arguments.count == interface.argumentShapes.count else {
      throw DelegateError(
        kind: .invalidValue, member: member,
        message: "the function takes \(interface.argumentShapes.count) arguments, got \(arguments.count)")
    }
    do throws(ArgumentValueError) {
      return try interface.call(
        unsafeBitCast(function, to: (@convention(c) () -> Void).self), leading: nil, values: arguments)
    } catch {
      let place = (["argument \(error.position)"] + error.error.path).joined(separator: " → ")
      throw DelegateError(kind: .invalidValue, member: member, message: "\(place): \(error.error.message)")
    }
  }

  /// The value of data member `member`.
  public func value(of member: String) throws(DelegateError) -> CValue {
    let (found, shape) = try dataMember(member)
    return shape.load(from: table + found.offset)
  }

  /// Writes `value` into data member `member` (a string is copied into memory the delegate keeps).
  public func setValue(_ value: CValue, of member: String) throws(DelegateError) {
    let (found, shape) = try dataMember(member)
    try withUnsafeTemporaryAllocation(byteCount: max(16, shape.size), alignment: 16) { buffer throws(DelegateError) in
      buffer.initializeMemory(as: UInt8.self, repeating: 0)
      var arena = CStringArena(interningIn: strings)
      do throws(ValueError) {
        try shape.store(value, at: buffer.baseAddress!, strings: &arena)
      } catch {
        throw DelegateError(
          kind: .invalidValue, member: member, message: (error.path + [error.message]).joined(separator: ": "))
      }
      (table + found.offset).copyMemory(from: buffer.baseAddress!, byteCount: shape.size)
    }
  }

  private func dataMember(_ name: String) throws(DelegateError) -> (CallbackTable.Member, ValueShape) {
    guard let member = callbackTable.member(named: name) else {
      throw DelegateError(
        kind: .unknownMember, member: name, message: "\(callbackTable.name) has no member called \(name)")
    }
    guard case .data(let type) = member.kind else {
      throw DelegateError(kind: .wrongMemberKind, member: name, message: "a function member is not data")
    }
    do {
      return (member, try ValueShape(type, model: callbackTable.model, inRecord: true))
    } catch {
      throw DelegateError(kind: .invalidValue, member: name, message: error.message)
    }
  }
}
