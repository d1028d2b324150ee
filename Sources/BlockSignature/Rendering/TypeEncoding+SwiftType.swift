// Rendering encodings as the Swift types the importer would give them.

extension TypeEncoding {
  /// The Swift type a C declaration of this type imports as.
  ///
  ///     try TypeEncoding(parsing: "r*").swiftType()  // "UnsafePointer<CChar>?"
  ///     try TypeEncoding(parsing: "q").swiftType()   // "Int"
  ///
  /// Types Swift's importer does not import are approximated and marked with a comment:
  /// `_Complex T` as a `(T, T)` tuple, `__int128` as `Int128`, `_Atomic(T)` as `T`, a 128-bit
  /// `long double` (AArch64 Linux) as a comment alone, an unencodable parameter as
  /// `/* no encoding */`; a pointer to one of them is an `OpaquePointer?`, as the importer
  /// makes it. A leading `r` is `const` on the innermost pointee, as clang writes it: `r^*` is
  /// `const char **`, `UnsafeMutablePointer<UnsafePointer<CChar>?>?`.
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
  ///
  /// A single space whose written offsets give it 16 bytes is `__float128` (see
  /// ``cDeclaration(ofArgument:name:for:)``), for which Swift has no type: it is the comment
  /// `/* __float128 */` alone, as a 128-bit `long double` is.
  ///
  ///     try SignatureEncoding(parsing: " 28@?0 8 10 12").swiftType()
  ///     // "@convention(block) (Float16, Float16, /* __float128 */) -> Float16"
  public func swiftType(for model: DataModel = .x86_64SysV) -> String {
    let renderer = SwiftRenderer(model: model)
    switch kind {
    case .block:
      let parameters = explicitArguments.indices.map { renderer.render(argument: $0, of: self, asParameter: true) }
      return
        "@convention(block) (\(parameters.joined(separator: ", "))) -> \(renderer.render(returnType, asParameter: false))"
    case .method:
      let parameters = arguments.indices.map { renderer.render(argument: $0, of: self, asParameter: true) }
      return
        "@convention(c) (\(parameters.joined(separator: ", "))) -> \(renderer.render(returnType, asParameter: false))"
    case .types:
      return
        ([renderer.render(returnType, asParameter: false)]
        + arguments.indices.map { renderer.render(argument: $0, of: self, asParameter: false) })
        .joined(separator: ", ")
    }
  }
}

extension SignatureEncoding {
  /// The Swift type of argument `index` as a parameter: the argument type's
  /// ``TypeEncoding/swiftType(for:)``, but a single space whose written offsets give it 16
  /// bytes is `__float128`, which Swift does not import (see
  /// ``cDeclaration(ofArgument:name:for:)``).
  ///
  ///     let signature = try SignatureEncoding(parsing: " 28@?0 8 10 12")
  ///     signature.swiftType(ofArgument: 1)  // "Float16"
  ///     signature.swiftType(ofArgument: 3)  // "/* __float128 */"
  ///
  /// - Precondition: `index` is an index of ``arguments``.
  public func swiftType(ofArgument index: Int, for model: DataModel = .x86_64SysV) -> String {
    SwiftRenderer(model: model).render(argument: index, of: self, asParameter: true)
  }
}

struct SwiftRenderer {
  let model: DataModel
  /// How a single space imports: `Float16`, or a comment for `__float128` (an argument the
  /// written offsets give 16 bytes), which Swift does not import.
  var otherFloatName = "Float16"

  /// Argument `index` of `signature`: a space is `__float128` where the written offsets give
  /// it 16 bytes.
  func render(argument index: Int, of signature: SignatureEncoding, asParameter: Bool) -> String {
    var renderer = self
    if signature.isFloat128(argument: index) { renderer.otherFloatName = "/* __float128 */" }
    return renderer.render(signature.arguments[index].type, asParameter: asParameter)
  }

  func primitive(_ code: TypeCode) -> String {
    switch code {
    // Where `char` is unsigned, clang's `c` is `signed char`, which imports as `Int8`.
    case .char: model.isCharSigned ? "CChar" : "Int8"
    // Where `char` is unsigned, clang writes `C` for it too; the C spelling says `char`, so
    // this one says `CChar`, what a `char` imports as.
    case .unsignedChar: model.isCharSigned ? "UInt8" : "CChar"
    case .short: "Int16"
    case .unsignedShort: "UInt16"
    case .int: "Int32"
    case .unsignedInt: "UInt32"
    // `l` is a 4-byte `long`: Swift's `CLong` is `Int` except on Windows.
    case .long: model.pointerSize == 4 ? "Int" : "Int32"
    case .unsignedLong: model.pointerSize == 4 ? "UInt" : "UInt32"
    case .longLong: model.pointerSize == 8 && model.longSize == 8 ? "Int" : "Int64"
    case .unsignedLongLong: model.pointerSize == 8 && model.longSize == 8 ? "UInt" : "UInt64"
    case .int128: "Int128 /* __int128 */"
    case .unsignedInt128: "UInt128 /* unsigned __int128 */"
    case .float: "Float"
    case .double: "Double"
    // A double; the x87 type (the x86 models); else IEEE quad, for which Swift has no type.
    case .longDouble:
      model.longDoubleSize == 8 ? "Double" : (model.isCharSigned ? "Float80" : "/* long double */")
    case .otherFloat: otherFloatName
    case .bool: "Bool"
    case .void: "Void"
    case .cString: "UnsafeMutablePointer<CChar>?"  // `r*` is `UnsafePointer<CChar>?` (see `pointer`)
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
      // A parameter or result: the importer bridges it to a Swift closure, `((Int32) -> Int32)?`.
      return block(signature, bridged: true)
    case .pointer(let pointee):
      return pointer(to: pointee, isConst: false)
    case .qualified(.const, .pointer(let pointee)):
      return pointer(to: pointee, isConst: true)
    case .qualified(.const, .primitive(.cString)):
      return Self.charPointer(isConst: true)
    case .qualified(_, let inner):
      return render(inner, asParameter: asParameter)
    case .array(let count, let element):
      if asParameter { return pointer(to: element, isConst: false) }
      let item = element.unqualified.isBlock ? render(inMemory: element) : render(element, asParameter: false)
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
      return render(inner, asParameter: asParameter) + " /* _Atomic */"
    case .unencodable:
      return "/* no encoding */"
    }
  }

  /// `char *` (`*`, `r*`): `CChar` on every target, whatever `c` means there.
  static func charPointer(isConst: Bool) -> String {
    isConst ? "UnsafePointer<CChar>?" : "UnsafeMutablePointer<CChar>?"
  }

  /// A pointer to `pointee`. `isConst` is clang's leading `r`: `const` on the innermost
  /// pointee, the first that is not itself a pointer (`r^^i` is `const int **`).
  /// A block type: bridged to a Swift closure where it is a parameter or a result
  /// (`((Int32) -> Int32)?`), as the importer makes it, or `@convention(block)` where it sits in
  /// memory (behind a pointer, in an array): `(@convention(block) (Int32) -> Int32)?`. Without
  /// its signature (outside Apple's extended encodings) it is an object, `AnyObject?`.
  func block(_ signature: [TypeEncoding]?, bridged: Bool) -> String {
    guard let signature, let result = signature.first else { return "AnyObject?" }
    let parameters = signature.dropFirst(2).map { render($0, asParameter: true) }.joined(separator: ", ")
    return "(\(bridged ? "" : "@convention(block) ")(\(parameters)) -> \(render(result, asParameter: false)))?"
  }

  /// A value stored in memory (a pointee, an array element): blocks keep `@convention(block)`.
  func render(inMemory type: TypeEncoding) -> String {
    if case .block(let signature) = type.unqualified { return block(signature, bridged: false) }
    return render(type, asParameter: false)
  }

  func pointer(to pointee: TypeEncoding, isConst: Bool) -> String {
    var isConst = isConst
    var target = pointee
    while case .qualified(let qualifier, let inner) = target {
      if qualifier == .const { isConst = true }
      target = inner
    }
    switch target {
    case .primitive(.void):
      return isConst ? "UnsafeRawPointer?" : "UnsafeMutableRawPointer?"
    case .primitive(.cString):
      return "UnsafeMutablePointer<\(Self.charPointer(isConst: isConst))>?"
    case .pointer(let inner):
      return "UnsafeMutablePointer<\(pointer(to: inner, isConst: isConst))>?"
    case .primitive(.unknown), .structure(_, nil), .union(_, nil):
      return "OpaquePointer?"
    case .structure(_, let fields?) where fields.isEmpty:
      return "OpaquePointer?"
    case .union(_, let fields?) where fields.isEmpty:
      return "OpaquePointer?"
    case .primitive(.int128), .primitive(.unsignedInt128), .complex, .atomic:
      // Not imported, so a pointer to it is opaque.
      return "OpaquePointer?"
    case .primitive(.longDouble) where render(target, asParameter: false).hasPrefix("/*"):
      return "OpaquePointer?"
    default:
      let inner = render(inMemory: target)
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
