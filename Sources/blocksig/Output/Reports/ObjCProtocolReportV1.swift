// The `blocksig objc protocol --json` document (Schemas/blocksig-objc-protocol-1.schema.json).

import BlockSignature
import BlockSignatureHeaders

/// `blocksig objc protocol --json`, version 1.
struct ObjCProtocolReportV1: Encodable {
  struct Method: Encodable {
    var selector: String
    /// `instance` or `class`.
    var kind: String
    var required: Bool
    /// The method type encoding in method form, with clang's offsets.
    var signature: String
    var variadic: Bool
    /// The protocol that declares the method.
    var origin: String
    var returnType: String?
    var parameterTypes: [String]?
    var declaration: String?
  }

  let serializationVersion = 1
  var `protocol`: String
  var header: String
  var target: String
  var adoptedProtocols: [String]
  var methods: [Method]
  /// The text form, as `ObjCProtocolDescription(parsing:)` reads it.
  var text: String

  init(_ description: ObjCProtocolDescription, header: String) {
    self.protocol = description.name
    self.header = header
    target = description.methods.first?.signature.model.name ?? (DataModel.host ?? .x86_64SysV).name
    adoptedProtocols = description.adoptedProtocols
    methods = description.methods.map {
      Method(
        selector: $0.selector, kind: $0.isInstanceMethod ? "instance" : "class", required: $0.isRequired,
        signature: $0.signature.description, variadic: $0.isVariadic, origin: $0.origin, returnType: $0.returnType,
        parameterTypes: $0.parameterTypes, declaration: $0.declaration)
    }
    text = description.text
  }
}
