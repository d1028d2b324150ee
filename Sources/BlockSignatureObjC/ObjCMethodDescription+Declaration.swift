import BlockSignature

extension ObjCMethodDescription {
  /// The method as Objective-C declares it, with C type names from its encoding and the
  /// parameter names left out: `- (struct _NSRange)rangeOfString:(id)`.
  public var declaration: String {
    let model = signature.model
    let encoding = signature.encoding
    var text = (isInstanceMethod ? "- (" : "+ (") + encoding.returnType.cDeclaration(for: model) + ")"
    let parts = selector.name.split(separator: ":", omittingEmptySubsequences: false).dropLast()
    guard !parts.isEmpty else { return text + selector.name }
    for (index, part) in parts.enumerated() {
      let argument = index + 2
      let type = argument < encoding.arguments.count ? encoding.cDeclaration(ofArgument: argument, for: model) : "?"
      text += (index == 0 ? "" : " ") + part + ":(" + type + ")"
    }
    return text
  }

  /// The type of its implementation in Swift: `@convention(c) (self, _cmd, arguments…) -> result`.
  public var swiftImplementationType: String { signature.encoding.swiftType(for: signature.model) }
}
