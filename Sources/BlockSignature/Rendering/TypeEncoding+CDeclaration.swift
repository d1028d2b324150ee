// Rendering encodings as C declarations, with correct declarator nesting
// (`int (*)[4]`, `void (^)(int (^)(int))`).

extension TypeEncoding {
  /// The C spelling of the type, optionally declaring `name`.
  ///
  ///     try TypeEncoding(parsing: "r*").cDeclaration()              // "const char *"
  ///     try TypeEncoding(parsing: "^[4i]").cDeclaration(name: "p")  // "int (*p)[4]"
  ///
  /// `q` prints as `long` where `long` has 8 bytes and `long long` elsewhere; `l` as `long`
  /// where `long` has 4 bytes and `int` elsewhere; `c` as `char` where `char` is signed and
  /// `signed char` elsewhere, `C` as `unsigned char` or `char` the other way round; `B` as
  /// `_Bool`, the spelling clang uses in C and Objective-C before C23, which compiles without a
  /// header. Field names come from the encoding, or are `f0`, `f1`, ….
  public func cDeclaration(name: String = "", for model: DataModel = .x86_64SysV) -> String {
    CRenderer(model: model).declare(self, name, isConst: false)
  }
}

extension SignatureEncoding {
  /// The C type of the block (`int (^)(int, const char *)`), of the method's implementation
  /// (`int (*)(id, SEL, int)`), or the types of a type list separated by commas.
  ///
  ///     try SignatureEncoding(parsing: "i20@?0i8r*12").cDeclaration()  // "int (^)(int, const char *)"
  ///
  /// Arguments are spelled as ``cDeclaration(ofArgument:name:for:)`` spells them: a single
  /// space whose written offsets give it 16 bytes is `__float128`.
  public func cDeclaration(for model: DataModel = .x86_64SysV) -> String {
    let renderer = CRenderer(model: model)
    switch kind {
    case .block:
      let parameters = explicitArguments.indices.map { renderer.declare(argument: $0, of: self) }
      return renderer.declare(
        returnType, "(^)(\(parameters.isEmpty ? "void" : parameters.joined(separator: ", ")))", isConst: false)
    case .method:
      let parameters = arguments.indices.map { renderer.declare(argument: $0, of: self) }
      return renderer.declare(returnType, "(*)(\(parameters.joined(separator: ", ")))", isConst: false)
    case .types:
      return
        ([renderer.declare(returnType, "", isConst: false)]
        + arguments.indices.map { renderer.declare(argument: $0, of: self) })
        .joined(separator: ", ")
    }
  }

  /// The C type of argument `index` (0 is the block, or `self`), optionally declaring `name`, as
  /// the signature shows it.
  ///
  /// It is the argument type's ``TypeEncoding/cDeclaration(name:for:)`` but for a single space,
  /// which clang writes for `_Float16`, `__bf16` and `__float128` alike: where the written
  /// offsets give the argument 16 bytes, it is `__float128`; otherwise `_Float16`, which may
  /// also be `__bf16` (2 bytes too: nothing tells them apart). A return value's size is not in
  /// the frame, so a space there is always `_Float16`.
  ///
  ///     let signature = try SignatureEncoding(parsing: " 28@?0 8 10 12")
  ///     signature.cDeclaration(ofArgument: 3)  // "__float128"
  ///     signature.cDeclaration(ofArgument: 1)  // "_Float16"
  ///     signature.cDeclaration()               // "_Float16 (^)(_Float16, _Float16, __float128)"
  ///
  /// - Precondition: `index` is an index of ``arguments``.
  public func cDeclaration(ofArgument index: Int, name: String = "", for model: DataModel = .x86_64SysV) -> String {
    CRenderer(model: model).declare(argument: index, of: self, name: name)
  }
}

struct CRenderer {
  let model: DataModel
  /// How a single space is spelled: `_Float16`, or `__float128` for an argument the written
  /// offsets give 16 bytes.
  var otherFloatName = "_Float16"

  private func join(_ base: String, _ declarator: String) -> String {
    declarator.isEmpty ? base : declarator.hasPrefix("[") ? base + declarator : base + " " + declarator
  }

  /// Declarators that start with a pointer operator need parentheses before `[]` or `()`.
  private func wrap(_ declarator: String) -> String {
    declarator.hasPrefix("*") || declarator.hasPrefix("^") ? "(" + declarator + ")" : declarator
  }

  func primitiveName(_ code: TypeCode) -> String {
    switch code {
    // Where `char` is unsigned it is `C`: `c` is only ever `signed char` there.
    case .char: model.isCharSigned ? "char" : "signed char"
    case .unsignedChar: model.isCharSigned ? "unsigned char" : "char"
    case .short: "short"
    case .unsignedShort: "unsigned short"
    case .int: "int"
    case .unsignedInt: "unsigned int"
    case .long: model.longSize == 4 ? "long" : "int"
    case .unsignedLong: model.longSize == 4 ? "unsigned long" : "unsigned int"
    case .longLong: model.longSize == 8 ? "long" : "long long"
    case .unsignedLongLong: model.longSize == 8 ? "unsigned long" : "unsigned long long"
    case .int128: "__int128"
    case .unsignedInt128: "unsigned __int128"
    case .float: "float"
    case .double: "double"
    case .longDouble: "long double"
    case .otherFloat: otherFloatName
    case .bool: "_Bool"
    case .void: "void"
    case .cString: "char *"
    case .class: "Class"
    case .selector: "SEL"
    case .atom: "NXAtom"
    case .unknown: "void"
    }
  }

  /// Argument `index` of `signature`, declaring `name`: a space is `__float128` where the
  /// written offsets give it 16 bytes.
  func declare(argument index: Int, of signature: SignatureEncoding, name: String = "") -> String {
    var renderer = self
    if signature.isFloat128(argument: index) { renderer.otherFloatName = "__float128" }
    return renderer.declare(signature.arguments[index].type, name, isConst: false)
  }

  /// `type` declaring `declarator`. `isConst` is clang's leading `r`: `const` on the innermost
  /// pointee that is not itself a pointer (`r^^i` is `const int **`); when that pointee is an
  /// array of pointers, the pointers are const (`r^[4*]` is `char *const (*)[4]`), which
  /// `isConstPointer` carries to the element.
  func declare(_ type: TypeEncoding, _ declarator: String, isConst: Bool, isConstPointer: Bool = false) -> String {
    let const = isConst ? "const " : ""
    let star = isConstPointer ? (declarator.isEmpty ? "*const" : "*const ") : "*"
    switch type {
    case .primitive(.cString):
      return join(const + "char", star + declarator)
    case .primitive(let code):
      return join(const + primitiveName(code), declarator)
    case .object(let className):
      guard let className, !className.isEmpty else { return join(const + "id", declarator) }
      if className.hasPrefix("<") { return join(const + "id" + className, declarator) }
      return join(const + className, star + declarator)
    case .block(let signature):
      guard let signature, let result = signature.first else {
        return join("void", "(^" + declarator + ")()")
      }
      let parameters = signature.dropFirst(2).map { declare($0, "", isConst: false) }
      return declare(
        result, "(^" + declarator + ")(" + (parameters.isEmpty ? "void" : parameters.joined(separator: ", ")) + ")",
        isConst: false)
    case .pointer(let pointee):
      if case .primitive(.unknown) = pointee { return join("void", "(*" + declarator + ")()") }
      return declare(pointee, star + declarator, isConst: isConst)
    case .array(let count, let element):
      if isConst, element.isPointerLike {
        return declare(element, wrap(declarator) + "[\(count)]", isConst: false, isConstPointer: true)
      }
      return declare(element, wrap(declarator) + "[\(count)]", isConst: isConst)
    case .structure(let name, let fields), .union(let name, let fields):
      let keyword = if case .union = type { "union" } else { "struct" }
      if name != "?" && !name.isEmpty { return join(const + keyword + " " + name, declarator) }
      var body = keyword + " {"
      for (index, field) in (fields ?? []).enumerated() {
        let fieldName = field.name ?? "f\(index)"
        if case .bitfield(let bitfield) = field.type.unqualified {
          let base = bitfield.declaredType.map(primitiveName) ?? "int"
          body += " \(base) \(fieldName) : \(bitfield.width);"
        } else {
          body += " " + declare(field.type, fieldName, isConst: false) + ";"
        }
      }
      body += " }"
      return join(const + body, declarator)
    case .bitfield(let bitfield):
      let base = bitfield.declaredType.map(primitiveName) ?? "int"
      return join(const + base, declarator) + " : \(bitfield.width)"
    case .complex(let inner):
      return join(const + "_Complex " + declare(inner, "", isConst: false), declarator)
    case .atomic(let inner):
      return join(const + "_Atomic(" + declare(inner, "", isConst: false) + ")", declarator)
    case .qualified(.const, let inner):
      return declare(inner, declarator, isConst: true)
    case .qualified(let qualifier, let inner):
      return qualifier.keyword + " " + declare(inner, declarator, isConst: isConst)
    case .unencodable:
      return join("/* no encoding */", declarator)
    }
  }
}

extension TypeEncoding {
  /// A pointer, a C string or an object pointer with a class name, whose `const` goes after
  /// its `*`.
  fileprivate var isPointerLike: Bool {
    switch self {
    case .pointer, .primitive(.cString): true
    case .object(let className?): !className.isEmpty && !className.hasPrefix("<")
    default: false
    }
  }
}
