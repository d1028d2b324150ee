import Foundation

/// Reads, from the assembly `clang -O2 -S` writes, where a leaf function takes one of its
/// arguments: the stack slot it loads the value from, or the argument register it copies it
/// out of. Only the forms clang writes for such functions are understood (x86-64 and i386 in
/// AT&T syntax, AArch64); anything else is an error, never a guess.
package struct ClangAssembly {
  /// An instruction: its mnemonic and its operands, as written.
  package struct Instruction: CustomStringConvertible {
    package var mnemonic: String
    package var operands: [String]
    package var description: String { "\(mnemonic) \(operands.joined(separator: ", "))" }
  }

  /// Where a value comes from.
  package enum Source: Hashable, CustomStringConvertible {
    /// Loaded from the stack: `offset` bytes above the stack pointer at the function's entry
    /// (`8(%rsp)`, `[sp, #8]`).
    case stack(offset: Int)
    /// An argument register, by its 64-bit name (`r9`, `xmm3`, `x7`, `v2`).
    case register(String)

    package var description: String {
      switch self {
      case .stack(let offset): "stack +\(offset)"
      case .register(let name): name
      }
    }
  }

  /// The architecture's syntax and registers.
  package enum Architecture {
    case x86_64, i386, aarch64

    /// From a target triple.
    package init(triple: String) {
      if triple.hasPrefix("x86_64") {
        self = .x86_64
      } else if triple.hasPrefix("i386") || triple.hasPrefix("i686") {
        self = .i386
      } else {
        self = .aarch64
      }
    }
  }

  /// What went wrong reading a function.
  package struct ReadingError: Error, CustomStringConvertible {
    package var function: String
    package var problem: String
    package var body: [Instruction]
    package var description: String {
      "\(function): \(problem)\n" + body.map { "  \($0)" }.joined(separator: "\n")
    }
  }

  package let architecture: Architecture
  /// Each function's instructions, from its label to its first return.
  package private(set) var functions: [String: [Instruction]] = [:]

  /// Splits `text`, the assembly for a target of `architecture`, into functions.
  package init(_ text: String, architecture: Architecture) {
    self.architecture = architecture
    var current: String?
    var body: [Instruction] = []
    for rawLine in text.split(separator: "\n", omittingEmptySubsequences: false) {
      // Comments: `#` on x86 (where AArch64 writes immediates with it), `//` and `;` on AArch64.
      var line = String(rawLine)
      for marker in architecture == .aarch64 ? ["//", ";"] : ["#"] {
        if let range = line.range(of: marker) { line = String(line[..<range.lowerBound]) }
      }
      while line.last?.isWhitespace == true { line.removeLast() }
      if !line.hasPrefix("\t"), !line.hasPrefix(" "), line.hasSuffix(":") {
        var name = String(line.dropLast())
        // Apple's symbols start with an underscore.
        if name.hasPrefix("_") { name.removeFirst() }
        if !name.hasPrefix("."), !name.hasPrefix("L"), !name.hasPrefix("l_") {
          current = name
          body = []
        }
        continue
      }
      guard let function = current else { continue }
      let trimmed = line.trimmingCharacters(in: .whitespaces)
      guard !trimmed.isEmpty, !trimmed.hasPrefix(".") else { continue }
      let mnemonic = String(trimmed.prefix { !$0.isWhitespace })
      let rest = trimmed.dropFirst(mnemonic.count).trimmingCharacters(in: .whitespaces)
      let instruction = Instruction(mnemonic: mnemonic, operands: rest.isEmpty ? [] : Self.operands(rest))
      if mnemonic.hasPrefix("ret") {
        if functions[function] == nil { functions[function] = body }
        current = nil
      } else {
        body.append(instruction)
      }
    }
  }

  /// Operands split at the commas outside `()` and `[]`.
  static func operands(_ text: String) -> [String] { splitAtTopLevelCommas(text) }

  // MARK: Registers and operands

  /// The 64-bit name of a register operand (`%r9d` → `r9`, `w7` → `x7`, `d3` → `v3`), nil for
  /// anything else.
  func register(_ operand: String) -> String? {
    switch architecture {
    case .x86_64, .i386:
      guard operand.hasPrefix("%") else { return nil }
      let name = String(operand.dropFirst())
      if name.hasPrefix("xmm") { return name }
      let aliases: [String: String] = [
        "eax": "rax", "ax": "rax", "al": "rax", "ebx": "rbx", "bx": "rbx", "bl": "rbx", "ecx": "rcx", "cx": "rcx",
        "cl": "rcx", "edx": "rdx", "dx": "rdx", "dl": "rdx", "esi": "rsi", "si": "rsi", "sil": "rsi", "edi": "rdi",
        "di": "rdi", "dil": "rdi",
      ]
      if let alias = aliases[name] { return alias }
      if name.hasPrefix("r"), let number = Int(name.dropFirst().prefix { $0.isNumber }) { return "r\(number)" }
      return name.hasPrefix("r") ? name : nil
    case .aarch64:
      let name = operand.prefix { $0 != "." }
      guard let kind = name.first, let number = Int(name.dropFirst()) else { return nil }
      switch kind {
      case "x", "w": return "x\(number)"
      case "v", "q", "d", "s", "h", "b": return "v\(number)"
      default: return nil
      }
    }
  }

  /// The byte offset of a stack memory operand (`8(%rsp)`, `(%esp)`, `[sp]`, `[sp, #16]`), nil
  /// for anything else.
  func stackOffset(_ operand: String) -> Int? {
    switch architecture {
    case .x86_64, .i386:
      let base = architecture == .x86_64 ? "(%rsp)" : "(%esp)"
      guard operand.hasSuffix(base) else { return nil }
      let number = operand.dropLast(base.count)
      return number.isEmpty ? 0 : Int(number)
    case .aarch64:
      if operand == "[sp]" { return 0 }
      guard operand.hasPrefix("[sp, #"), operand.hasSuffix("]") else { return nil }
      return Int(operand.dropFirst("[sp, #".count).dropLast())
    }
  }

  /// The base register of a memory operand without offset (`(%rcx)` → `%rcx`, `[x3]` → `x3`),
  /// nil for anything else.
  func pointerBase(_ operand: String) -> String? {
    switch architecture {
    case .x86_64, .i386:
      guard operand.hasPrefix("(%"), operand.hasSuffix(")"), !operand.contains(",") else { return nil }
      return String(operand.dropFirst().dropLast())
    case .aarch64:
      guard operand.hasPrefix("["), operand.hasSuffix("]"), !operand.contains(",") else { return nil }
      return String(operand.dropFirst().dropLast())
    }
  }

  /// Whether an operand names the stack pointer at all.
  func mentionsStackPointer(_ operand: String) -> Bool {
    switch architecture {
    case .x86_64: operand.contains("%rsp") || operand.contains("%esp")
    case .i386: operand.contains("%esp")
    case .aarch64: operand.contains("sp") && !operand.contains("fp")
    }
  }

  /// The destination and the source of a move, load, store or extension (`movq 8(%rsp), %rax` is
  /// `%rax` from `8(%rsp)`; `ldr x0, [sp]` is `x0` from `[sp]`; `str x9, [x8]` is `[x8]` from
  /// `x9`; `sxtb w0, w1` is `w0` from `w1`; `fldl 4(%esp)` is the x87 stack from `4(%esp)`); nil
  /// for other instructions.
  func move(_ instruction: Instruction) -> (destination: String, source: String)? {
    let operands = instruction.operands
    switch architecture {
    case .x86_64, .i386:
      if instruction.mnemonic.hasPrefix("fld"), operands.count == 1 { return ("%st", operands[0]) }
      guard instruction.mnemonic.hasPrefix("mov"), operands.count == 2 else { return nil }
      return (operands[1], operands[0])
    case .aarch64:
      guard operands.count == 2 else { return nil }
      let mnemonic = instruction.mnemonic
      if mnemonic.hasPrefix("st") { return (operands[1], operands[0]) }
      // Moves, loads, and the extensions a callee makes of a narrow value (`sxtb w0, w1`).
      if ["ldr", "ldur", "sxt", "uxt"].contains(where: mnemonic.hasPrefix) || mnemonic == "mov" || mnemonic == "fmov" {
        return (operands[0], operands[1])
      }
      return nil
    }
  }

  // MARK: Reading

  /// The body of `function`, checked: it must exist, and touch the stack pointer only to load
  /// from it (a frame would move the offsets).
  func body(of function: String) throws(ReadingError) -> [Instruction] {
    guard let body = functions[function] else {
      throw ReadingError(function: function, problem: "no such function in the assembly", body: [])
    }
    for instruction in body
    where instruction.operands.contains(where: mentionsStackPointer)
      || ["push", "pop", "call", "enter", "leave"].contains(where: instruction.mnemonic.hasPrefix)
    {
      guard let move = move(instruction), stackOffset(move.source) != nil, !mentionsStackPointer(move.destination)
      else {
        throw ReadingError(
          function: function, problem: "touches the stack pointer other than by a load: \(instruction)", body: body)
      }
    }
    return body
  }

  /// Where the value that `function` returns comes from, in the general-purpose return register
  /// (RAX, EAX, X0) or, with `floatingPoint`, the floating-point one (XMM0, V0, the x87 stack).
  /// A function whose body is empty returns the argument already in that register (AArch64's X0
  /// or V0, x86-64's XMM0).
  package func returnedValue(of function: String, floatingPoint: Bool) throws(ReadingError) -> Source {
    let body = try body(of: function)
    let target: String =
      switch (architecture, floatingPoint) {
      case (.x86_64, false), (.i386, false): "rax"
      case (.x86_64, true): "xmm0"
      case (.i386, true): "%st"
      case (.aarch64, false): "x0"
      case (.aarch64, true): "v0"
      }
    guard
      let index = body.lastIndex(where: { instruction in
        move(instruction).map { ($0.destination == "%st" ? "%st" : register($0.destination)) == target } ?? false
      })
    else {
      guard body.isEmpty, target != "rax", target != "%st" else {
        throw ReadingError(function: function, problem: "no instruction writes \(target)", body: body)
      }
      return .register(target)
    }
    return try source(of: move(body[index])!.source, before: index, in: body, function: function)
  }

  /// Where the value that `function` stores at the start of a buffer (`(%rdi)`, `(%eax)`,
  /// `[x8]`: the first word of a returned structure) comes from.
  package func storedValue(of function: String) throws(ReadingError) -> Source {
    let body = try body(of: function)
    guard
      let index = body.lastIndex(where: { instruction in
        guard let destination = move(instruction)?.destination else { return false }
        switch architecture {
        case .x86_64, .i386: return destination.range(of: #"^\(%[a-z0-9]+\)$"#, options: .regularExpression) != nil
        case .aarch64: return destination == "[x8]"
        }
      })
    else {
      throw ReadingError(function: function, problem: "no instruction stores at the start of a buffer", body: body)
    }
    return try source(of: move(body[index])!.source, before: index, in: body, function: function)
  }

  /// Follows `operand`, read by instruction `index`, back to a stack slot or an argument register.
  private func source(of operand: String, before index: Int, in body: [Instruction], function: String)
    throws(ReadingError) -> Source
  {
    if let offset = stackOffset(operand) { return .stack(offset: offset) }
    // A load through a pointer (`(%rcx)`, `[x3]`): where the pointer comes from.
    if let base = pointerBase(operand) { return try source(of: base, before: index, in: body, function: function) }
    guard let name = register(operand) else {
      throw ReadingError(function: function, problem: "cannot follow operand \(operand)", body: body)
    }
    // The latest earlier instruction that wrote the register, if any: follow its source.
    if let earlier = body[..<index].lastIndex(where: { move($0).flatMap { register($0.destination) } == name }) {
      return try source(of: move(body[earlier])!.source, before: earlier, in: body, function: function)
    }
    return .register(name)
  }
}

/// `text` split at the commas outside `()` and `[]`, each piece trimmed: the operands of an
/// instruction, the parameters of a C declaration (`int, void (*)(int, char), char [4]`).
package func splitAtTopLevelCommas(_ text: String) -> [String] {
  var result: [String] = []
  var depth = 0
  var current = ""
  for character in text {
    if character == "(" || character == "[" { depth += 1 }
    if character == ")" || character == "]" { depth -= 1 }
    if character == ",", depth == 0 {
      result.append(current.trimmingCharacters(in: .whitespaces))
      current = ""
    } else {
      current.append(character)
    }
  }
  result.append(current.trimmingCharacters(in: .whitespaces))
  return result
}
