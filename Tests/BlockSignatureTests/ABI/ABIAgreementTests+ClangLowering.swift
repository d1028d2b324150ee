import BlockSignature
import Foundation
import TestSupport
import Testing

// How clang lowers each type on a target, read from its IR, and the checks of the abi level
// against it.

extension ABIAgreementTests {
  static func source(_ types: [(name: String, declaration: String?, spelling: String)]) -> String {
    var text = ""
    for type in types {
      if let declaration = type.declaration { text += declaration + ";\n" }
      text += "void (^b_\(type.name))(\(type.spelling)) = ^(\(type.spelling) x) { };\n"
      text += "void f_\(type.name)(\(type.spelling) x) { }\n"
    }
    return text
  }

  /// The parameters of `define … @name(…)` without names and attributes that do not change
  /// the registers: `signext`, `noundef`, `alignstack(8)`. Integer widths are one class (the
  /// sizes are compared apart); on x86-64 so are `float`, `double` and `<2 x float>`: each is
  /// one SSE eightbyte.
  static func registers(ofFunction name: String, in ir: String, triple: String) -> String? {
    guard let line = ir.split(separator: "\n").first(where: { $0.hasPrefix("define") && $0.contains("@\(name)(") }),
      let open = line.range(of: "@\(name)("), let close = line.range(of: ") #", options: .backwards)
    else { return nil }
    var parameters = String(line[open.upperBound..<close.lowerBound])
    for pattern in [#"%\d+"#, #"\b(noundef|signext|zeroext|alignstack\(\d+\)|align \d+)\b"#] {
      parameters = parameters.replacingOccurrences(of: pattern, with: "", options: .regularExpression)
    }
    parameters = parameters.replacingOccurrences(
      of: #"(?<![x\w] )\bi(8|16|32|64)\b"#, with: "INT", options: .regularExpression)
    if triple.hasPrefix("x86_64-linux") {
      parameters = parameters.replacingOccurrences(
        of: "<2 x float>|double|float", with: "SSE", options: .regularExpression)
    }
    return parameters.replacingOccurrences(of: #"\s+"#, with: " ", options: .regularExpression)
      .trimmingCharacters(in: .whitespaces)
  }

  /// One type as clang lowers it on a target.
  struct Lowered {
    var name: String
    /// The signatures of a block returning the type and of one taking it.
    var returning: String
    var taking: String
    /// The IR return type of a function returning it, or `sret` for a hidden pointer.
    var returned: String
    /// Where the value comes back: the registers of ``returned`` (``returnRegisters(_:triple:structures:)``),
    /// or `sret align N` for a hidden pointer to a buffer aligned to N.
    var returnedAs: String
    /// Where an argument of the type goes when clang passes it in memory: `stack align N` for a
    /// copy on the stack at an N-aligned offset, `copy align N` for a pointer to the caller's
    /// copy aligned to N; nil for registers.
    var passedInMemoryAs: String?
    /// Where an argument of the type goes: ``passedInMemoryAs``, else its registers
    /// (``parameterRegisters(_:triple:structures:)``).
    var passedAs: String
    /// `sizeof`, from clang.
    var size: Int
    /// `_Alignof`, from clang.
    var alignment: Int
  }

  /// The pieces of an IR type (`{ … }`, `[N x …]` and named structures flattened), each named by
  /// the register it takes on `triple`: `INT` for an integer or pointer of up to the register
  /// width (an `i128` is two, an `i64` two on i386), `SSE` for a `float`, `double`, `half`,
  /// `<2 x float>` or `<N x half>` on x86-64 System V, `X87`/`ST0` for the x87 stack, `XMM` on
  /// Windows (and for `half` on i386), `H`, `S`, `D` and `Q` for the AArch64 SIMD registers by
  /// width.
  static func returnRegisters(_ type: String, triple: String, structures: [String: String]) -> [String] {
    let text = type.trimmingCharacters(in: .whitespaces)
    if let body = structures[text] { return returnRegisters(body, triple: triple, structures: structures) }
    if text.hasPrefix("{"), text.hasSuffix("}") {
      return topLevelPieces(of: String(text.dropFirst().dropLast())).flatMap {
        returnRegisters($0, triple: triple, structures: structures)
      }
    }
    if text.hasPrefix("["), let times = text.range(of: " x "),
      let count = Int(text.dropFirst().prefix { $0.isNumber })
    {
      let element = String(text[times.upperBound...].dropLast())
      return Array(
        repeatElement(returnRegisters(element, triple: triple, structures: structures), count: count).joined())
    }
    let registerBits = triple.hasPrefix("i386") ? 32 : 64
    if text == "ptr" { return ["INT"] }
    if text.hasPrefix("i"), let bits = Int(text.dropFirst()) {
      return Array(repeating: "INT", count: max(1, (bits + registerBits - 1) / registerBits))
    }
    let names: [String: String] =
      if triple.hasPrefix("x86_64-linux") {
        [
          "float": "SSE", "double": "SSE", "<2 x float>": "SSE", "x86_fp80": "X87", "half": "SSE", "<2 x half>": "SSE",
          "<4 x half>": "SSE",
        ]
      } else if triple.hasPrefix("i386") {
        // `_Float16` (and `_Complex _Float16`, `<2 x half>`) comes back in XMM0.
        ["float": "ST0", "double": "ST0", "x86_fp80": "ST0", "half": "XMM", "<2 x half>": "XMM"]
      } else if triple.contains("windows") {
        ["float": "XMM", "double": "XMM", "<2 x i64>": "XMM", "half": "XMM"]
      } else {
        ["float": "S", "double": "D", "fp128": "Q", "half": "H"]
      }
    return [names[text] ?? text]
  }

  /// The comma-separated pieces of a list of IR types, commas inside `{}`, `[]`, `<>` and `()`
  /// not splitting.
  static func topLevelPieces(of list: String) -> [String] {
    var pieces: [String] = []
    var depth = 0
    var current = ""
    for character in list {
      if "{[<(".contains(character) { depth += 1 }
      if "}]>)".contains(character) { depth -= 1 }
      if character == ",", depth == 0 {
        pieces.append(current)
        current = ""
      } else {
        current.append(character)
      }
    }
    pieces.append(current)
    return pieces
  }

  /// The registers of the parameters of a `define` (the text between its parentheses), as
  /// ``returnRegisters(_:triple:structures:)`` names them (arrays and structures flattened, so
  /// AArch64's `[1 x float]` is `float`'s `S`), names and the attributes that do not change the
  /// registers (`noundef`, `signext`, `zeroext`, `alignstack(8)`) dropped. On AArch64 an `i128`
  /// parameter is `INT, INT aligned 16`: a pair of registers AArch64 Linux starts at an even one
  /// and a 16-byte-aligned stack slot, unlike `[2 x i64]`.
  static func parameterRegisters(_ list: String, triple: String, structures: [String: String]) -> String {
    topLevelPieces(of: list).flatMap { piece -> [String] in
      var type = piece
      for pattern in [#"%\d+"#, #"\b(noundef|signext|zeroext|inreg|alignstack\(\d+\)|align \d+)"#] {
        type = type.replacingOccurrences(of: pattern, with: "", options: .regularExpression)
      }
      type = type.trimmingCharacters(in: .whitespaces)
      if type == "i128", triple.hasPrefix("aarch64") || triple.hasPrefix("arm64") { return ["INT, INT aligned 16"] }
      return returnRegisters(type, triple: triple, structures: structures)
    }.joined(separator: ", ")
  }

  /// Blocks returning and taking each type, functions returning and taking it, and a caller
  /// that passes it, compiled for `triple`: each type's block signatures, how clang returns it
  /// and how it passes it in memory, and its size.
  static func returnsAndParameters(
    _ types: [(name: String, declaration: String?, spelling: String)], triple: String, prelude: String = ""
  ) throws -> [Lowered] {
    // The values returned are zero-initialised statics: `= {0}` is no initializer for an
    // `_Atomic` scalar.
    var source = prelude
    for type in types {
      let spelling = type.spelling
      if let declaration = type.declaration { source += declaration + ";\n" }
      source += "\(spelling) (^r_\(type.name))(void) = ^\(spelling) (void) { static \(spelling) v; return v; };\n"
      source += "void (^p_\(type.name))(\(spelling)) = ^(\(spelling) x) { };\n"
      source += "\(spelling) f_\(type.name)(void) { static \(spelling) v; return v; }\n"
      source += "void g_\(type.name)(\(spelling) x) { }\n"
      source += "void c_\(type.name)(\(spelling) *p) { g_\(type.name)(*p); }\n"
      source += "const long long size_\(type.name) = sizeof(\(spelling));\n"
      source += "const long long align_\(type.name) = _Alignof(\(spelling));\n"
    }
    let (directory, product) = try Toolchain.compileC(
      source, fileName: "returns.c", arguments: ["--target=\(triple)", "-fblocks", "-w", "-S", "-emit-llvm"],
      output: "returns.ll")
    defer { try? FileManager.default.removeItem(at: directory) }
    let ir = try String(contentsOf: product, encoding: .utf8)
    let lines = ir.split(separator: "\n").map(String.init)
    let generated = GeneratedIR(ir)
    var structures: [String: String] = [:]
    for line in lines where line.hasPrefix("%") {
      guard let equals = line.range(of: " = type ") else { continue }
      structures[String(line[..<equals.lowerBound])] = String(line[equals.upperBound...])
    }
    // Where each function's `define` line is, by name (a search per type is quadratic).
    var definitions: [String: Int] = [:]
    for (index, line) in lines.enumerated() where line.hasPrefix("define") {
      guard let at = line.firstIndex(of: "@") else { continue }
      definitions[String(line[line.index(after: at)...].prefix { $0 != "(" })] = index
    }
    func definition(_ name: String) throws -> String {
      lines[try #require(definitions[name], "\(name) on \(triple)")]
    }
    func firstMatch(_ pattern: String, in text: String) -> String? {
      guard let range = text.range(of: pattern, options: .regularExpression) else { return nil }
      return String(text[range])
    }
    func alignment(after pattern: String, in text: String) -> String? {
      firstMatch(pattern + #"\) align \d+"#, in: text).map { String($0.split(separator: " ").last!) }
    }
    return try types.map { type in
      let function = try definition("f_\(type.name)")
      let returned: String
      let returnedAs: String
      if let align = alignment(after: #"sret\(.*?"#, in: function) {
        (returned, returnedAs) = ("sret", "sret align \(align)")
      } else {
        // `define [dso_local] [signext|zeroext] <type> @f_name(`.
        var irType = String(function.dropFirst("define ".count).prefix { $0 != "@" })
        for attribute in ["dso_local", "signext", "zeroext", "noundef", "inreg"] {
          irType = irType.replacingOccurrences(of: attribute + " ", with: "")
        }
        returned = irType.trimmingCharacters(in: .whitespaces)
        returnedAs = returnRegisters(returned, triple: triple, structures: structures).joined(separator: ", ")
      }
      let taking = try definition("g_\(type.name)")
      let parameters = String(taking[taking.range(of: "@g_\(type.name)(")!.upperBound...].prefix { $0 != "#" })
      var passedInMemoryAs: String?
      if let align = alignment(after: #"byval\(.*?"#, in: taking) {
        passedInMemoryAs = "stack align \(align)"
      } else if triple.hasPrefix("i386") {
        // Every argument on the stack: each IR argument at the next 4-byte-aligned offset.
        passedInMemoryAs = "stack align 4"
      } else if triple.hasPrefix("x86_64-linux"), parameters.hasPrefix("x86_fp80") {
        // Class X87 goes in memory: 16 bytes at a 16-byte-aligned offset (x87ValuesOnSystemV).
        passedInMemoryAs = "stack align 16"
      } else if parameters.hasPrefix("ptr noundef %0)") {
        // A pointer: to the caller's copy if the caller passes one (`%3 = alloca %struct.X, align 8`).
        let caller = lines[(definitions["c_\(type.name)"] ?? lines.count)...].prefix { $0 != "}" }
        if let call = caller.first(where: { $0.contains("call void @g_\(type.name)(") }),
          let value = firstMatch(#"%\d+\)"#, in: call)?.dropLast(),
          let copy = caller.first(where: { $0.contains("\(value) = alloca ") })
        {
          passedInMemoryAs = "copy align \(copy.split(separator: " ").last!)"
        }
      }
      let list = String(
        parameters[..<(parameters.range(of: ")", options: .backwards)?.lowerBound ?? parameters.endIndex)])
      return Lowered(
        name: type.name, returning: try #require(generated.signature(ofVariable: "r_\(type.name)")),
        taking: try #require(generated.signature(ofVariable: "p_\(type.name)")), returned: returned,
        returnedAs: returnedAs, passedInMemoryAs: passedInMemoryAs,
        passedAs: passedInMemoryAs ?? parameterRegisters(list, triple: triple, structures: structures),
        size: try #require(generated.constants["size_\(type.name)"], "size of \(type.name) on \(triple)"),
        alignment: try #require(generated.constants["align_\(type.name)"], "alignment of \(type.name) on \(triple)"))
    }
  }

  /// Every pair of return types is compatible exactly when clang returns both the same way (the
  /// same registers, or a hidden pointer to a buffer of the same alignment) and they have the
  /// same size. Returns how many pairs clang calls compatible and how many not.
  @discardableResult
  static func expectReturnsAsClangDoes(_ values: [Lowered], checker: CompatibilityChecker) throws -> (Int, Int) {
    try expectPairsAsClangDoes(values, checker: checker, asReturnValues: true)
  }

  /// Every pair of argument types is compatible exactly when clang passes both the same way (the
  /// same registers, the same stack bytes or a copy of the same alignment) and they have the same
  /// size.
  static func expectArgumentsAsClangDoes(_ values: [Lowered], checker: CompatibilityChecker) throws {
    try expectPairsAsClangDoes(values, checker: checker, asReturnValues: false)
  }

  /// Every pair of `values`, as return values (``Lowered/returnedAs``, ``Lowered/returning``) or
  /// as arguments (``Lowered/passedAs``, ``Lowered/taking``): the checker calls it compatible
  /// exactly when clang lowers both alike and they have the same size. Returns how many pairs
  /// clang calls compatible and how many not.
  @discardableResult
  static func expectPairsAsClangDoes(
    _ values: [Lowered], checker: CompatibilityChecker, asReturnValues: Bool
  ) throws -> (Int, Int) {
    var counts = (compatible: 0, incompatible: 0)
    let (role, verb) = asReturnValues ? ("return", "returns") : ("argument", "passes")
    for (index, first) in values.enumerated() {
      for second in values[(index + 1)...] {
        let (a, b) = asReturnValues ? (first.returnedAs, second.returnedAs) : (first.passedAs, second.passedAs)
        let clangAgrees = a == b && first.size == second.size
        let report =
          asReturnValues
          ? try checker.check(first.returning, against: second.returning)
          : try checker.check(first.taking, against: second.taking)
        #expect(
          report.isCompatible == clangAgrees,
          """
          \(checker.model): \(role) \(first.name) vs \(second.name): clang \(verb) \(a) \
          (\(first.size) bytes) and \(b) (\(second.size) bytes); \
          the checker says \(report.diagnostics.map(\.description))
          """)
        if clangAgrees { counts.compatible += 1 } else { counts.incompatible += 1 }
      }
    }
    return counts
  }

  /// What the checker answered for one pair: compatible, not, or not compared (its `unknownSize`
  /// or `unknownLayout` warning: the encodings do not tell).
  enum Answer: Equatable {
    case compatible, incompatible, notCompared

    init(_ report: CompatibilityReport) {
      let notCompared = [
        CompatibilityMessages.unknownSize(.returnValue, "", "").id,
        CompatibilityMessages.unknownLayout(.returnValue, "", "").id,
      ]
      if !report.isCompatible {
        self = .incompatible
      } else {
        self = report.diagnostics.contains { notCompared.contains($0.id) } ? .notCompared : .compatible
      }
    }
  }

  /// One type of a pair as the checker is told it: clang's lowering of what its encoding (and,
  /// for an argument, its slot in the frame) describes, and whether the encoding hides its layout.
  struct Told {
    var value: Lowered
    var isHidden: Bool
  }

  /// Expects the checker's answer for a pair at one position (``Told`` for each side): where
  /// either side's layout is hidden it may answer "not compared"; any answer it gives is clang's,
  /// compatible exactly when clang passes (returns) both the same way and they have the same size.
  /// Returns the answer and clang's.
  @discardableResult
  static func expectAnswer(
    _ report: CompatibilityReport, _ first: Told, _ second: Told, asArgument: Bool, context: String
  ) -> (answer: Answer, clangAgrees: Bool) {
    let (a, b) = (first.value, second.value)
    let (aWay, bWay) = asArgument ? (a.passedAs, b.passedAs) : (a.returnedAs, b.returnedAs)
    let clangAgrees = aWay == bWay && a.size == b.size
    let answer = Answer(report)
    let verb = asArgument ? "passes" : "returns"
    if answer == .notCompared {
      #expect(
        first.isHidden || second.isHidden,
        "\(context): not compared, but the encodings tell: \(report.diagnostics.map(\.description))")
    } else {
      #expect(
        (answer == .compatible) == clangAgrees,
        """
        \(context): clang \(verb) \(aWay) (\(a.size) bytes) and \(bWay) (\(b.size) bytes); the checker says \
        \(report.diagnostics.map(\.description))
        """)
    }
    return (answer, clangAgrees)
  }

  /// Every type compiled for `triple`, lowered: the register types, scalars and small records,
  /// and the records of more than 16 bytes.
  static func everyType(on triple: String) throws -> (model: DataModel, values: [Lowered]) {
    let model = try #require(targets.first { $0.triple == triple }?.model)
    return (model, try returnsAndParameters(parameterTypes + scalarTypes(model) + memoryTypes, triple: triple))
  }
}
