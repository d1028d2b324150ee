// The `blocksig objc class --json` document (Schemas/blocksig-objc-class-1.schema.json).

import BlockSignature
import BlockSignatureHeaders

/// `blocksig objc class --json`, version 1: a class's block parameters with their signatures.
struct ObjCClassReportV1: Encodable {
  struct BlockParameter: Encodable {
    var selector: String
    /// `instance` or `class`.
    var kind: String
    /// Among the method's explicit parameters, from 0.
    var index: Int
    /// The type as the header spells it.
    var type: String
    /// The signature clang writes for a block literal of the type, with its offsets.
    var signature: String
    /// The block type in C.
    var declaration: String
  }

  let serializationVersion = 1
  var `class`: String
  var header: String
  var target: String
  var blockParameters: [BlockParameter]

  init(className: String, header: String, parameters: [ObjCBlockParameter]) {
    self.class = className
    self.header = header
    target = parameters.first?.signature.model.name ?? (DataModel.host ?? .x86_64SysV).name
    blockParameters = parameters.map {
      BlockParameter(
        selector: $0.selector, kind: $0.isInstanceMethod ? "instance" : "class", index: $0.index, type: $0.type,
        signature: $0.signature.description,
        declaration: $0.signature.encoding.cDeclaration(for: $0.signature.model))
    }
  }

  /// A heading line, then one line per parameter: `- SELECTOR  argument N  TYPE  SIGNATURE  // C`.
  var text: String {
    var lines = ["# \(self.class), from \(header) by clang: \(counted(blockParameters.count, "block parameter"))"]
    for parameter in blockParameters {
      lines.append(
        "\(parameter.kind == "instance" ? "-" : "+") \(parameter.selector)  argument \(parameter.index)  "
          + "\(parameter.type)  \(parameter.signature)  // \(parameter.declaration)")
    }
    return lines.joined(separator: "\n") + "\n"
  }
}
