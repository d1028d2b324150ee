// The names an assembly listing gives to the places of arguments and return values on each
// calling convention.

extension ArgumentPlacement.Place {
  /// The place as an assembly listing for `model`'s calling convention names it: registers in
  /// lower case (`rdi`, `xmm0`; `x0`, `v0`; on Windows x64 `rcx`, `rdx`, `r8`, `r9` or `xmm0`–`xmm3`
  /// by position), stack bytes as `stack+offset` from the first stack argument, joined by
  /// `, `; `?` where the place is not known, `-` for none.
  ///
  ///     ArgumentPlacement.Place.split(general: 5..<6, floatingPoint: 0..<0, stackOffset: 0, stackSize: 8)
  ///       .locations(for: .x86_64SysV)  // "r9, stack+0"
  public func locations(for model: DataModel) -> String {
    switch self {
    case .registers: return registerNames(for: model).joined(separator: ", ")
    case .stack(let offset, _): return "stack+\(offset)"
    case .split(_, _, let offset, _): return (registerNames(for: model) + ["stack+\(offset)"]).joined(separator: ", ")
    case .none: return "-"
    case .unknown: return "?"
    }
  }

  /// The names of the registers the place takes on `model` (general-purpose first), as
  /// ``locations(for:)`` writes them; none for a place on the stack alone.
  ///
  ///     ArgumentPlacement.Place.registers(general: 1..<2, floatingPoint: 0..<1).registerNames(for: .aarch64Linux)
  ///     // ["x1", "v0"]
  public func registerNames(for model: DataModel) -> [String] {
    let (general, floatingPoint): (Range<Int>, Range<Int>)
    switch self {
    case .registers(let g, let f), .split(let g, let f, _, _): (general, floatingPoint) = (g, f)
    case .stack, .none, .unknown: return []
    }
    let (integers, floats): ([String], String) =
      switch ConventionFamily(model) {
      case .systemV: (["rdi", "rsi", "rdx", "rcx", "r8", "r9"], "xmm")
      case .aapcs64: ((0..<8).map { "x\($0)" }, "v")
      case .windowsX64: (["rcx", "rdx", "r8", "r9"], "xmm")
      case .i386: ([], "xmm")
      }
    return general.map { integers.indices.contains($0) ? integers[$0] : "gpr\($0)" }
      + floatingPoint.map { "\(floats)\($0)" }
  }
}

extension TypeEncoding {
  /// Where a value of this type comes back from a call on `model`, named as an assembly listing
  /// names the registers (`rax, rdx`, `rax, xmm0`, `xmm0, xmm1`, `st0, st1` on x86_64 System V;
  /// `x0, x1`, `v0, v1, v2` on AArch64; `rax`, `xmm0` on Windows x64; `eax, edx`, `st0` on i386);
  /// `memory` for a buffer the caller passes (see ``ArgumentPlacement/returnBufferLocation``),
  /// `-` for `void`, `?` where the encoding does not say.
  ///
  ///     try TypeEncoding(parsing: "{?=qd}").returnLocation(for: .x86_64SysV)  // "rax, xmm0"
  public func returnLocation(for model: DataModel) -> String {
    let family = ConventionFamily(model)
    let shape = returnShape(for: model)
    func numbered(_ prefix: String, _ count: Int) -> String {
      (0..<count).map { "\(prefix)\($0)" }.joined(separator: ", ")
    }
    switch (family, shape.passing) {
    case (_, .void): return "-"
    case (_, .memory): return "memory"
    case (_, .unknown): return "?"
    case (.systemV, .eightbytes(let first, let second)):
      if first == .x87 { return shape.size > 16 ? "st0, st1" : "st0" }
      var (integers, vectors) = (["rax", "rdx"][...], ["xmm0", "xmm1"][...])
      let names = [first, second].compactMap { registerClass -> String? in
        switch registerClass {
        case .integer: integers.popFirst()
        case .sse: vectors.popFirst()
        default: nil
        }
      }
      // A record without bytes comes back in no register.
      return names.isEmpty ? "-" : names.joined(separator: ", ")
    case (.aapcs64, .integer(let count)): return numbered("x", count)
    case (.aapcs64, .alignedIntegerPair): return "x0, x1"
    case (.aapcs64, .floatingPoint(_, let count)): return numbered("v", count)
    case (.windowsX64, .integer): return "rax"
    case (.windowsX64, .floatingPoint), (.windowsX64, .vector): return "xmm0"
    case (.i386, .integer(let count)): return count > 1 ? "eax, edx" : "eax"
    case (.i386, .floatingPoint): return "st0"
    default: return "?"
    }
  }
}
