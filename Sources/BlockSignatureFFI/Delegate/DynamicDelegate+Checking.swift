// Whether a block may implement a member: its signature against the member's, with the
// context parameter or without it.

import BlockSignature

extension DynamicDelegate {
  /// The member's signature in block form, with or without its first parameter.
  static func blockForm(of member: CallbackTable.Member, droppingContext: Bool) -> String? {
    guard let signature = member.signature else { return nil }
    let parameters = signature.encoding.arguments.map(\.type).dropFirst(droppingContext ? 1 : 0)
    return try? MethodSignature(
      returnType: signature.encoding.returnType, argumentTypes: Array(parameters), form: .block,
      model: signature.model
    ).description
  }

  /// How `block` implements `member`, or why it cannot.
  static func implementation(
    of member: CallbackTable.Member, with block: UnsafeRawPointer, level: CompatibilityLevel
  ) throws(DelegateError) -> MemberImplementation {
    guard let full = blockForm(of: member, droppingContext: false) else {
      throw DelegateError(kind: .wrongMemberKind, member: member.name, message: "a data member has no function")
    }
    let fullError: InvocationError
    do {
      return MemberImplementation(
        invocation: try BlockInvocation(block: block, declaredSignature: full, level: level), dropsContext: false)
    } catch {
      fullError = error
    }
    guard fullError.kind == .incompatibleSignature else {
      throw DelegateError(kind: .invalidBlock, member: member.name, message: fullError.description)
    }
    if member.takesContext, let reduced = blockForm(of: member, droppingContext: true),
      let invocation = try? BlockInvocation(block: block, declaredSignature: reduced, level: level)
    {
      return MemberImplementation(invocation: invocation, dropsContext: true)
    }
    let alternative = member.takesContext ? " (nor without its context parameter)" : ""
    throw DelegateError(
      kind: .incompatibleBlock, member: member.name, message: fullError.message + alternative,
      diagnostics: fullError.diagnostics)
  }
}
