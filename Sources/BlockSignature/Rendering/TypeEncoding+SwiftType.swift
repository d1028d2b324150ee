// Rendering encodings as the Swift types the importer would give them.

extension TypeEncoding {
  /// The Swift type a C declaration of this type imports as.
  ///
  ///     try TypeEncoding(parsing: "r*").swiftType()  // "UnsafePointer<CChar>?"
  ///     try TypeEncoding(parsing: "q").swiftType()   // "Int"
  ///
  /// Types Swift cannot import are approximated and marked with a comment: `_Complex T` as a
  /// `(T, T)` tuple, an unencodable parameter as `/* no encoding */`.
  public func swiftType(for model: DataModel = .x86_64SysV) -> String {
    SwiftRenderer(model: model).render(self, asParameter: true)
  }
}

extension SignatureEncoding {
  /// The Swift function type: `@convention(block) (Int32, UnsafePointer<CChar>?) -> Int32` for a
  /// block, `@convention(c) (AnyObject?, OpaquePointer?, …) -> …` for a method implementation,
  /// or the types of a list separated by commas.
  ///
  ///     try SignatureEncoding(parsing: "i20@?0i8r*12").swiftType()
  ///     // "@convention(block) (Int32, UnsafePointer<CChar>?) -> Int32"
  public func swiftType(for model: DataModel = .x86_64SysV) -> String {
    let renderer = SwiftRenderer(model: model)
    switch kind {
    case .block:
      let parameters = explicitArguments.map { renderer.render($0.type, asParameter: true) }
      return
        "@convention(block) (\(parameters.joined(separator: ", "))) -> \(renderer.render(returnType, asParameter: false))"
    case .method:
      let parameters = arguments.map { renderer.render($0.type, asParameter: true) }
      return
        "@convention(c) (\(parameters.joined(separator: ", "))) -> \(renderer.render(returnType, asParameter: false))"
    case .types:
      return ([returnType] + arguments.map(\.type)).map { renderer.render($0, asParameter: false) }
        .joined(separator: ", ")
    }
  }
}

struct SwiftRenderer {
  let model: DataModel

  func primitive(_ code: TypeCode) -> String {
    switch code {
    case .char: "CChar"
    case .unsignedChar: "UInt8"
    case .short: "Int16"
    case .unsignedShort: "UInt16"
    case .int, .long: "Int32"
    case .unsignedInt, .unsignedLong: "UInt32"
    case .longLong: model.pointerSize == 8 && model.longSize == 8 ? "Int" : "Int64"
    case .unsignedLongLong: model.pointerSize == 8 && model.longSize == 8 ? "UInt" : "UInt64"
    case .int128: "Int128"
    case .unsignedInt128: "UInt128"
    case .float: "Float"
    case .double: "Double"
    case .longDouble:
      model.longDoubleSize == 8 ? "Double" : (model.isCharSigned ? "Float80" : "CLongDouble")
    case .otherFloat: "Float16"
    case .bool: "Bool"
    case .void: "Void"
    case .cString: "UnsafeMutablePointer<CChar>?"
    case .class: "AnyClass?"
    case .selector: "OpaquePointer?"
    case .atom: "UnsafePointer<CChar>?"
    case .unknown: "Void"
    }
  }

  /// The longest tuple spelled out for an array or a `_Complex` value, in bytes. Longer ones
  /// become a comment naming the element once, so nesting (`[16[16[16…]]]`, `jjj…`) makes the
  /// output grow linearly, not exponentially.
  static let maximumTupleLength = 4096

  func render(_ type: TypeEncoding, asParameter: Bool) -> String {
    switch type {
    case .primitive(let code):
      return primitive(code)
    case .object(let className):
      if let className, !className.isEmpty, !className.hasPrefix("<") {
        return "\(className.prefix { $0 != "<" })?"
      }
      return "AnyObject?"
    case .block(let signature):
      guard let signature, let result = signature.first else { return "AnyObject?" }
      let parameters = signature.dropFirst(2).map { render($0, asParameter: true) }
      return "(@convention(block) (\(parameters.joined(separator: ", "))) -> \(render(result, asParameter: false)))?"
    case .pointer(let pointee):
      return pointer(to: pointee, isConst: false)
    case .qualified(.const, .pointer(let pointee)):
      return pointer(to: pointee, isConst: true)
    case .qualified(.const, .primitive(.cString)):
      return "UnsafePointer<CChar>?"
    case .qualified(_, let inner):
      return render(inner, asParameter: asParameter)
    case .array(let count, let element):
      if asParameter { return pointer(to: element, isConst: false) }
      let item = render(element, asParameter: false)
      if count <= 16, Int(count) * (item.utf8.count + 2) <= Self.maximumTupleLength {
        return "(" + Array(repeating: item, count: Int(count)).joined(separator: ", ") + ")"
      }
      return "/* [\(count) x \(item)] */"
    case .structure(let name, _), .union(let name, _):
      return name == "?" || name.isEmpty ? "/* anonymous \(type.isUnionType ? "union" : "struct") */" : name
    case .bitfield(let bitfield):
      return bitfield.declaredType.map(primitive) ?? "Int32"
    case .complex(let inner):
      let part = render(inner, asParameter: false)
      guard 2 * part.utf8.count <= Self.maximumTupleLength else { return "/* _Complex \(part) */" }
      return "(\(part), \(part)) /* _Complex */"
    case .atomic(let inner):
      return render(inner, asParameter: asParameter)
    case .unencodable:
      return "/* no encoding */"
    }
  }

  func pointer(to pointee: TypeEncoding, isConst: Bool) -> String {
    switch pointee.unqualified {
    case .primitive(.void):
      return isConst ? "UnsafeRawPointer?" : "UnsafeMutableRawPointer?"
    case .primitive(.unknown), .structure(_, nil), .union(_, nil):
      return "OpaquePointer?"
    case .structure(_, let fields?) where fields.isEmpty:
      return "OpaquePointer?"
    case .union(_, let fields?) where fields.isEmpty:
      return "OpaquePointer?"
    default:
      let inner = render(pointee, asParameter: false)
      return isConst ? "UnsafePointer<\(inner)>?" : "UnsafeMutablePointer<\(inner)>?"
    }
  }
}

extension TypeEncoding {
  fileprivate var isUnionType: Bool {
    if case .union = self { return true }
    return false
  }
}
