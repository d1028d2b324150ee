import BlockSignature
import BlockSignatureFFI
import BlockSignatureHeaders

extension ObjCMethodDescription {
  /// A protocol's method as read from its header (`HeaderReader.objcProtocol(header:named:)`).
  public init(_ method: ObjCProtocolDescription.Method) {
    self.init(
      selector: Selector(method.selector), signature: method.signature, isRequired: method.isRequired,
      isInstanceMethod: method.isInstanceMethod)
  }
}

extension ObjCDynamicDelegate {
  /// A delegate for a protocol read from its header: every instance method's types are the
  /// ones clang writes for it, `@optional` ones included (GCC's runtime records none of those).
  ///
  ///     var reader = HeaderReader()
  ///     reader.arguments += HeaderReader.gnustepArguments() ?? []
  ///     let parserDelegate = try reader.objcProtocol(
  ///       header: "/usr/include/GNUstep/Foundation/NSXMLParser.h", named: "NSXMLParserDelegate")
  ///     let delegate = try ObjCDynamicDelegate(parserDelegate)
  ///
  /// - Throws: ``ObjCError`` as ``init(protocolName:methods:realDelegate:level:)``.
  public convenience init(
    _ description: ObjCProtocolDescription, realDelegate: ObjCObject? = nil, level: CompatibilityLevel = .abi
  ) throws(ObjCError) {
    try self.init(
      protocolName: description.name, methods: description.methods.map(ObjCMethodDescription.init),
      realDelegate: realDelegate, level: level)
  }
}
