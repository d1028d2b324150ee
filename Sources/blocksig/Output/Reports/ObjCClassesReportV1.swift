// The `blocksig objc classes --json` document (Schemas/blocksig-objc-classes-1.schema.json),
// and the text form of one class.

import BlockSignature
import BlockSignatureObjC

/// `blocksig objc classes --json`, version 1.
struct ObjCClassesReportV1: Encodable {
  struct InstanceVariable: Encodable {
    var name: String
    var type: String
    var offset: Int
  }

  struct Method: Encodable {
    var selector: String
    /// `instance` or `class`.
    var kind: String
    /// The type encoding the compiler wrote.
    var types: String
    var declaration: String?
    var swift: String?
    /// Why the types could not be read, in place of the declarations.
    var error: String?
  }

  struct Class: Encodable {
    var name: String
    var superclass: String?
    var protocols: [String]
    var instanceVariables: [InstanceVariable]
    var methods: [Method]

    init(_ objcClass: ObjCClass) {
      name = objcClass.name
      superclass = objcClass.superclass?.name
      protocols = objcClass.protocols.map(\.name)
      instanceVariables = objcClass.instanceVariables.map {
        InstanceVariable(name: $0.name, type: $0.typeEncoding, offset: $0.offset)
      }
      let classMethods = objcClass.metaclass.methods.map { Self.method($0, isInstanceMethod: false) }
      let instanceMethods = objcClass.methods.map { Self.method($0, isInstanceMethod: true) }
      methods = classMethods.sorted { $0.selector < $1.selector } + instanceMethods.sorted { $0.selector < $1.selector }
    }

    static func method(_ method: ObjCMethod, isInstanceMethod: Bool) -> Method {
      let selector = method.selector.name, types = method.typeEncoding
      let kind = isInstanceMethod ? "instance" : "class"
      do {
        let description = ObjCMethodDescription(
          selector: method.selector, signature: try method.signature(), isInstanceMethod: isInstanceMethod)
        return Method(
          selector: selector, kind: kind, types: types, declaration: description.declaration,
          swift: description.swiftImplementationType)
      } catch {
        return Method(selector: selector, kind: kind, types: types, error: error.message)
      }
    }

    /// `@interface Name : Super <Protocols>`, the variables, the methods, `@end`.
    func text(swift: Bool) -> String {
      var lines = [
        "@interface \(name)" + (superclass.map { " : \($0)" } ?? "")
          + (protocols.isEmpty ? "" : " <\(protocols.joined(separator: ", "))>")
      ]
      for variable in instanceVariables {
        lines.append("  \(variable.type) \(variable.name);  // offset \(variable.offset)")
      }
      for method in methods {
        let sign = method.kind == "instance" ? "-" : "+"
        let declaration = method.declaration ?? "\(sign) \(method.selector)  // \(method.error ?? "")"
        var line = declaration + String(repeating: " ", count: max(0, 60 - declaration.count)) + "  " + method.types
        if swift, let type = method.swift { line += "  // \(type)" }
        lines.append(line)
      }
      lines.append("@end")
      return lines.joined(separator: "\n")
    }
  }

  let serializationVersion = 1
  var library: String
  var target: String
  var classes: [Class]

  init(library: String, classes: [ObjCClass]) {
    self.library = library
    target = (DataModel.host ?? .x86_64SysV).name
    self.classes = classes.map(Class.init)
  }
}
