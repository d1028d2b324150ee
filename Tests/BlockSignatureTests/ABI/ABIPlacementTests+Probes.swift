import BlockSignature
import Foundation
import TestSupport
import Testing

// The probes: C functions and blocks clang compiles for each target, what its assembly shows
// of where each argument is read, and the expectations the suite holds them to.

extension ABIPlacementTests {
  /// A type `x` takes.
  struct CType {
    var name: String
    var declaration: String?
    var spelling: String
    /// An expression for the first scalar in `x` (it is at the start of `x`, or of the copy a
    /// pointer to it is passed), and its type; nil for none.
    var first: (expression: String, type: String)?

    init(_ name: String, _ spelling: String, first: (String, String)?) {
      self.name = name
      self.spelling = spelling
      self.first = first
    }

    init(_ name: String, record declaration: String, first: (String, String)?) {
      self.name = name
      self.declaration = declaration
      self.spelling = String(declaration.prefix { $0 != "{" }.dropLast())
      self.first = first
    }
  }

  /// The types `x` takes: scalars, records that look like them, homogeneous floating-point
  /// aggregates, records passed in memory, and a record without bytes.
  static func types(_ model: DataModel) -> [CType] {
    (model.hasInt128
      ? [
        CType("T", "__int128", first: ("(long long)x", "long long")),
        CType("T1", record: "struct T1 { __int128 t; }", first: ("(long long)x.t", "long long")),
      ] : [])
      + [
        CType("QQ", record: "struct QQ { long long a, b; }", first: ("x.a", "long long")),
        CType("S", "short", first: ("x", "short")),
        CType("CC", record: "struct CC { char a, b; }", first: ("x.a", "char")),
        CType("I", "int", first: ("x", "int")),
        CType("I1", record: "struct I1 { int a; }", first: ("x.a", "int")),
        CType("SS", record: "struct SS { short a, b; }", first: ("x.a", "short")),
        CType("F", "float", first: ("x", "float")),
        CType("F1", record: "struct F1 { float a; }", first: ("x.a", "float")),
        CType("FF", record: "struct FF { float a, b; }", first: ("x.a", "float")),
        CType("JF", "_Complex float", first: ("__real__ x", "float")),
        CType("D", "double", first: ("x", "double")),
        CType("Q", "long long", first: ("x", "long long")),
        CType("C", "char", first: ("x", "char")),
        CType("D3", record: "struct D3 { double a, b, c; }", first: ("x.a", "double")),
        CType("C24", record: "struct C24 { char c[24]; }", first: ("x.c[0]", "char")),
        CType("F3", record: "struct F3 { float a, b, c; }", first: nil),
        CType("DQ", record: "struct DQ { double a; long long b; }", first: nil),
        CType("LD", "long double", first: nil),
        CType("Z", record: "struct Z { int a[0]; }", first: nil),
      ]
  }

  /// Pairs of types that some target passes alike in registers but that may differ on the
  /// stack (alignment, or the room a small record takes on Apple's arm64).
  static let lookAlikes: [(String, String)] = [
    ("T", "QQ"), ("T1", "QQ"), ("T", "T1"), ("S", "CC"), ("I", "I1"), ("I", "SS"), ("I1", "SS"), ("F", "F1"),
    ("FF", "JF"), ("FF", "D"), ("JF", "D"), ("D3", "C24"), ("I", "F"), ("D", "Q"), ("C", "S"),
  ]

  /// The parameters before `x`: `longs` longs, then `doubles` doubles.
  struct Leading: Hashable {
    var longs: Int
    var doubles: Int
  }

  /// Enough leading arguments to use up each kind of register on every target, and a few less.
  static let leadings: [Leading] =
    (0...9).map { Leading(longs: $0, doubles: 0) } + (5...8).map { Leading(longs: 9, doubles: $0) }
    + (5...8).map { Leading(longs: 0, doubles: $0) }

  /// The type of the last argument, `m`.
  enum Marker: String, CaseIterable {
    case long, char, double
  }

  /// What a probe returns, and so which argument the assembly shows.
  enum Reads: String {
    /// `m`.
    case marker
    /// The first member of `x`.
    case first
    /// `m`, stored in the first word of a returned `struct Big` (in memory on every target).
    case markerInMemory
  }

  /// One function, and one block with the same parameters.
  struct Probe {
    var id: String
    /// The type of `x`; nil for none.
    var type: CType?
    var leading: Leading
    var marker: Marker
    var reads: Reads

    var parameters: String {
      var list = (0..<leading.longs).map { "long a\($0)" } + (0..<leading.doubles).map { "double d\($0)" }
      if let type { list.append("\(type.spelling) x") }
      list.append("\(marker.rawValue) m")
      return list.joined(separator: ", ")
    }

    /// The C type of the value read, and whether it comes back in a floating-point register.
    var returned: (spelling: String, isFloatingPoint: Bool) {
      switch reads {
      case .marker: (marker.rawValue, marker == .double)
      case .markerInMemory: ("struct Big", false)
      case .first:
        (type!.first!.type, ["float", "double"].contains(type!.first!.type))
      }
    }

    var source: String {
      let body =
        switch reads {
        case .marker: "{ return m; }"
        case .markerInMemory: "{ struct Big b = {m}; return b; }"
        case .first: "{ return \(type!.first!.expression); }"
        }
      let returned = returned.spelling
      return """
        \(returned) f_\(id)(\(parameters)) \(body)
        \(returned) (^b_\(id))(\(parameters)) = ^\(returned) (\(parameters)) \(body);

        """
    }
  }

  static func probes(_ model: DataModel) -> [Probe] {
    var probes: [Probe] = []
    for type in types(model) {
      for leading in leadings {
        for marker in Marker.allCases where marker != .double || leading.doubles > 0 {
          let id = "\(type.name)_\(leading.longs)_\(leading.doubles)_\(marker)"
          probes.append(Probe(id: id, type: type, leading: leading, marker: marker, reads: .marker))
          if type.first != nil {
            probes.append(Probe(id: "x" + id, type: type, leading: leading, marker: marker, reads: .first))
          }
        }
      }
    }
    for longs in 0...9 {
      probes.append(
        Probe(
          id: "R_\(longs)", type: nil, leading: Leading(longs: longs, doubles: 0), marker: .long,
          reads: .markerInMemory))
    }
    return probes
  }

  /// One probe as clang compiled it: the block's signature and its function form, and where the
  /// function and the block's invoke function read the value from.
  struct Observed {
    var probe: Probe
    var block: SignatureEncoding
    var function: SignatureEncoding
    var blockReads: ClangAssembly.Source
    var functionReads: ClangAssembly.Source
  }

  static let targets: [(triple: String, model: DataModel)] = ABIAgreementTests.targets

  /// The invoke function of the block a global block variable holds: from `@b = global ptr
  /// @literal` to the literal's `ptr @b_block_invoke` (`_2`, `_3` … when names repeat); the
  /// literal's isa may be `null` (Windows sets it when the program starts).
  static func invokeFunction(ofVariable variable: String, in ir: GeneratedIR) -> String? {
    guard let literal = ir.lines[variable].flatMap(GeneratedIR.lastSymbol(in:)), let line = ir.lines[literal] else {
      return nil
    }
    return line.components(separatedBy: "ptr @").dropFirst()
      .map { String($0.prefix { $0 != "," && $0 != " " && $0 != "}" }) }
      .first { $0.contains("_block_invoke") }
  }

  /// `source` compiled by clang for `triple` at `-O2`: its assembly, and its IR from the same
  /// flags (so that the invoke functions have the same names).
  static func compile(_ source: String, triple: String, name: String) throws -> (ClangAssembly, GeneratedIR) {
    let flags = ["--target=\(triple)", "-fblocks", "-w", "-S", "-O2"]
    let (asmFolder, asmFile) = try Toolchain.compileC(
      source, fileName: "\(name).c", arguments: flags, output: "\(name).s")
    defer { try? FileManager.default.removeItem(at: asmFolder) }
    let (irFolder, irFile) = try Toolchain.compileC(
      source, fileName: "\(name).c", arguments: flags + ["-emit-llvm"], output: "\(name).ll")
    defer { try? FileManager.default.removeItem(at: irFolder) }
    return (
      ClangAssembly(try String(contentsOf: asmFile, encoding: .utf8), architecture: .init(triple: triple)),
      GeneratedIR(try String(contentsOf: irFile, encoding: .utf8))
    )
  }

  /// Every probe compiled for `triple`: the assembly at `-O2` for the places, the IR (from the
  /// same flags, so that the invoke functions have the same names) for the signatures.
  static func observe(_ triple: String, model: DataModel) throws -> [Observed] {
    let probes = probes(model)
    var source = "struct Big { long a[10]; };\n"
    for type in types(model) { if let declaration = type.declaration { source += declaration + ";\n" } }
    for probe in probes { source += probe.source }
    let (assembly, ir) = try compile(source, triple: triple, name: "placement")
    return try probes.map { probe in
      let text = try #require(ir.signature(ofVariable: "b_\(probe.id)"), "b_\(probe.id) on \(triple)")
      let block = try SignatureEncoding(parsing: text)
      let invoke = try #require(invokeFunction(ofVariable: "b_\(probe.id)", in: ir), "b_\(probe.id) on \(triple)")
      func reads(_ function: String) throws -> ClangAssembly.Source {
        probe.reads == .markerInMemory
          ? try assembly.storedValue(of: function)
          : try assembly.returnedValue(of: function, floatingPoint: probe.returned.isFloatingPoint)
      }
      return Observed(
        probe: probe, block: block, function: try block.functionEncoding(for: model), blockReads: try reads(invoke),
        functionReads: try reads("f_\(probe.id)"))
    }
  }

  /// Where the assembly reads an argument that ``ArgumentPlacement`` puts at `place`: a stack
  /// offset above the stack pointer at entry (past the return address on x86, and Windows x64's
  /// home area), or the name of its first register of the kind the value is read from.
  static func source(of place: ArgumentPlacement.Place, floatingPoint: Bool, triple: String)
    -> ClangAssembly.Source?
  {
    let isAArch64 = triple.hasPrefix("aarch64") || triple.hasPrefix("arm64")
    switch place {
    case .stack(let offset, _):
      let base =
        if triple.hasPrefix("x86_64-windows") {
          40
        } else if triple.hasPrefix("x86_64") {
          8
        } else if triple.hasPrefix("i386") {
          4
        } else {
          0
        }
      return .stack(offset: offset + base)
    case .registers(let general, let floatingPointRegisters):
      // A record passed through a pointer is read through the pointer's register.
      let range = floatingPoint && !floatingPointRegisters.isEmpty ? floatingPointRegisters : general
      guard let number = range.first else { return nil }
      if isAArch64 { return .register(range == general ? "x\(number)" : "v\(number)") }
      if range != general { return .register("xmm\(number)") }
      let names =
        triple.contains("windows") ? ["rcx", "rdx", "r8", "r9"] : ["rdi", "rsi", "rdx", "rcx", "r8", "r9"]
      return names.indices.contains(number) ? .register(names[number]) : nil
    case .none, .unknown, .split:
      return nil
    }
  }

  /// Every probe's value is where the placement puts it: `m` (the last argument) or `x` (the one
  /// before), in the block and in the function.
  static func expectPlacements(_ observed: [Observed], triple: String, model: DataModel) {
    var onStack = 0
    for item in observed {
      for (form, signature, reads) in [
        ("block", item.block, item.blockReads), ("function", item.function, item.functionReads),
      ] {
        let placement = signature.argumentPlacement(for: model)
        let index = placement.arguments.count - (item.probe.reads == .first ? 2 : 1)
        let place = placement.arguments[index]
        let ours = source(of: place, floatingPoint: item.probe.returned.isFloatingPoint, triple: triple)
        #expect(
          ours == reads,
          """
          \(triple) \(form) \(item.probe.id) (\(signature)): clang reads argument \(index) from \(reads), \
          the placement says \(place) (\(ours.map(\.description) ?? "nothing"))
          """)
        #expect(
          placement.returnsInMemory == (item.probe.reads == .markerInMemory),
          "\(triple) \(item.probe.id): \(placement)")
        if case .stack = reads { onStack += 1 }
      }
    }
    // Both places occur, so the comparison can fail either way (on i386 all is on the stack).
    if triple.hasPrefix("i386") {
      #expect(onStack == observed.count * 2)
    } else {
      #expect(onStack >= 200 && onStack <= observed.count * 2 - 200, "\(triple): \(onStack) reads from the stack")
    }
  }

  /// Look-alike types, passed alike in registers (the abi level calls a block taking one alone
  /// compatible with a block taking the other): two blocks (or functions) with the same
  /// parameters around them are compatible exactly when clang reads `x` and `m` from the same
  /// places in both. On x86_64 System V (`__int128` against `struct { long long a, b; }`) and
  /// Apple's arm64 (`short` against `struct { char a, b; }`, `int` against `struct { int a; }`)
  /// it sometimes does not; on AArch64 Linux, Windows x64 and i386 look-alikes always land alike
  /// (8-byte slots, 16 aligned to 16 for the types aligned to 16, which the abi level already
  /// tells apart on AArch64; positional 8-byte slots; 4-byte slots).
  static func expectVerdicts(_ observed: [Observed], triple: String, model: DataModel) throws {
    var byID: [String: Observed] = [:]
    for item in observed { byID[item.probe.id] = item }
    let checker = CompatibilityChecker(level: .abi, model: model)
    var pairs = 0
    var counts = (agree: 0, differ: 0)
    for (first, second) in lookAlikes {
      guard let alone = byID["\(first)_0_0_long"], let other = byID["\(second)_0_0_long"],
        checker.check(alone.block, against: other.block).isCompatible
      else { continue }
      pairs += 1
      for leading in leadings {
        for marker in Marker.allCases {
          let suffix = "_\(leading.longs)_\(leading.doubles)_\(marker)"
          guard let a = byID[first + suffix], let b = byID[second + suffix] else { continue }
          let xa = try #require(byID["x" + first + suffix])
          let xb = try #require(byID["x" + second + suffix])
          for (form, x, y, clangAgrees) in [
            ("block", a.block, b.block, a.blockReads == b.blockReads && xa.blockReads == xb.blockReads),
            (
              "function", a.function, b.function,
              a.functionReads == b.functionReads && xa.functionReads == xb.functionReads
            ),
          ] {
            let report = checker.check(x, against: y)
            #expect(
              report.isCompatible == clangAgrees,
              """
              \(triple) \(form) \(first) vs \(second)\(suffix): clang reads x from \(xa.blockReads), \(xb.blockReads) \
              and m from \(a.blockReads), \(b.blockReads) (block); \(x) vs \(y): \
              \(report.diagnostics.map(\.description))
              """)
            if clangAgrees { counts.agree += 1 } else { counts.differ += 1 }
          }
        }
      }
    }
    #expect(pairs >= 4, "\(triple): \(pairs) look-alike pairs")
    if triple.hasPrefix("x86_64-linux") || triple.hasPrefix("arm64-apple") {
      #expect(counts.differ >= 4 && counts.agree >= 20, "\(triple): \(counts)")
    } else {
      #expect(counts.differ == 0 && counts.agree >= 20, "\(triple): \(counts)")
    }
  }
}
