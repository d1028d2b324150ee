import BlockSignatureFFI
import TestSupport

/// A C type for the invocation tests, with what the generated C does with a value of it: a
/// literal of a chosen value, a fold of a value into a hash (member by member, never raw bytes:
/// padding is garbage), and a value made from a hash.
indirect enum RandomCallType: Sendable {
  /// An integer of `bits` (8–128) bits, or `_Bool` when `bits` is 1.
  case integer(bits: Int, isSigned: Bool, spelling: String)
  case float, double, longDouble
  /// `_Complex` of `float`, `double` or `long double`.
  case complex(RandomCallType)
  case pointer
  case cString
  /// A structure or union named `name`, members `m0`, `m1`, …
  case record(name: String, members: [RandomCallType], isUnion: Bool)
  /// An array member.
  case array(count: Int, element: RandomCallType)

  /// The C spelling (an array's element type; its bound goes after the member name).
  var spelling: String {
    switch self {
    case .integer(_, _, let spelling): spelling
    case .float: "float"
    case .double: "double"
    case .longDouble: "long double"
    case .complex(let base): "_Complex \(base.spelling)"
    case .pointer: "void *"
    case .cString: "char *"
    case .record(let name, _, let isUnion): "\(isUnion ? "union" : "struct") \(name)"
    case .array(_, let element): element.spelling
    }
  }

  /// A member declaration `T m3;` or `T m3[4];`.
  func member(_ index: Int) -> String {
    if case .array(let count, let element) = self { return "\(element.spelling) m\(index)[\(count)];" }
    return "\(spelling) m\(index);"
  }

  // MARK: Values

  /// A random value of this type, as the library takes it, and its C literal.
  func randomValue(_ random: inout SeededRandom) -> (value: CValue, literal: String) {
    switch self {
    case .integer(1, _, _):
      let flag = Bool.random(using: &random)
      return (.bool(flag), flag ? "1" : "0")
    case .integer(let bits, let isSigned, let spelling):
      let raw = UInt128(random.next()) << 64 | UInt128(random.next())
      let bits128 = raw >> (128 - bits)
      if isSigned {
        let value = Int128(truncatingIfNeeded: bits128 << (128 - bits)) >> (128 - bits)
        let high = Int64(truncatingIfNeeded: value >> 64)
        let low = UInt64(truncatingIfNeeded: value)
        let literal = "((\(spelling))(__int128)(((unsigned __int128)(uint64_t)\(high)LL << 64) | \(low)ULL))"
        return (.signed(value), literal)
      }
      let high = UInt64(truncatingIfNeeded: bits128 >> 64)
      let low = UInt64(truncatingIfNeeded: bits128)
      return (.unsigned(bits128), "((\(spelling))(((unsigned __int128)\(high)ULL << 64) | \(low)ULL))")
    case .float:
      let x = Float(Int.random(in: -4000...4000, using: &random)) / 8
      return (.float(x), "((float)\(x))")
    case .double:
      let x = Double(Int.random(in: -400_000...400_000, using: &random)) / 64
      return (.double(x), "((double)\(x))")
    case .longDouble:
      let x = Float80(Int.random(in: -400_000...400_000, using: &random)) / 128
      return (.longDouble(x), "((long double)\(x)L)")
    case .complex(let base):
      let (real, realLiteral) = base.randomValue(&random)
      let (imaginary, imaginaryLiteral) = base.randomValue(&random)
      return (.complex(real: real, imaginary: imaginary), "__builtin_complex(\(realLiteral), \(imaginaryLiteral))")
    case .pointer:
      let address = UInt(random.next() & 0x7fff_ffff_fff0)
      return (.pointer(address), "((void *)\(address)ULL)")
    case .cString:
      let text = "s\(random.next() % 100_000)"
      return (.string(text), "\"\(text)\"")
    case .record(_, let members, let isUnion):
      if isUnion {
        let (value, literal) = members[0].randomValue(&random)
        return (.union(member: 0, value: value), "((\(spelling)){ .m0 = \(literal) })")
      }
      let parts = members.map { $0.randomValue(&random) }
      return (.aggregate(parts.map(\.value)), "((\(spelling)){ \(parts.map(\.literal).joined(separator: ", ")) })")
    case .array(let count, let element):
      let parts = (0..<count).map { _ in element.randomValue(&random) }
      return (.aggregate(parts.map(\.value)), "{ \(parts.map(\.literal).joined(separator: ", ")) }")
    }
  }

  /// C statements that fold the value `expression` into `uint64_t h`.
  func fold(_ expression: String) -> [String] {
    switch self {
    case .integer(128, _, _):
      return [
        "h = bs_mix(h, (uint64_t)(\(expression)));",
        "h = bs_mix(h, (uint64_t)((unsigned __int128)(\(expression)) >> 64));",
      ]
    case .integer: return ["h = bs_mix(h, (uint64_t)(\(expression)));"]
    case .float: return ["{ float v = \(expression); uint32_t b; memcpy(&b, &v, 4); h = bs_mix(h, b); }"]
    case .double: return ["{ double v = \(expression); uint64_t b; memcpy(&b, &v, 8); h = bs_mix(h, b); }"]
    case .longDouble: return ["{ long double v = \(expression); h = bs_mix_bytes(h, &v, 10); }"]
    case .complex(let base): return base.fold("__real__ (\(expression))") + base.fold("__imag__ (\(expression))")
    case .pointer: return ["h = bs_mix(h, (uint64_t)(uintptr_t)(\(expression)));"]
    case .cString: return ["h = bs_mix_string(h, \(expression));"]
    case .record(_, let members, let isUnion):
      return (isUnion ? Array(members.prefix(1)) : members).enumerated().flatMap { index, member in
        member.fold("(\(expression)).m\(index)")
      }
    case .array(let count, let element):
      return (0..<count).flatMap { element.fold("(\(expression))[\($0)]") }
    }
  }

  /// C statements that set the lvalue `target` from `uint64_t h`, advancing `h`.
  func make(_ target: String) -> [String] {
    let next = "(h = bs_mix(h, 0x5bd1e995))"
    switch self {
    case .integer(1, _, _): return ["\(target) = \(next) & 1;"]
    case .integer(128, _, _): return ["\(target) = (\(spelling))(((unsigned __int128)\(next) << 64) | \(next));"]
    case .integer: return ["\(target) = (\(spelling))\(next);"]
    case .float, .double, .longDouble:
      return ["\(target) = (\(spelling))((int64_t)(\(next) % 20000) - 10000) / 16;"]
    case .complex(let base): return base.make("__real__ \(target)") + base.make("__imag__ \(target)")
    case .pointer: return ["\(target) = (void *)(uintptr_t)(\(next) & 0x7fffffffff00);"]
    case .cString: return ["\(target) = bs_strings[\(next) % 4];"]
    case .record(_, let members, let isUnion):
      return (isUnion ? Array(members.prefix(1)) : members).enumerated().flatMap { index, member in
        member.make("\(target).m\(index)")
      }
    case .array(let count, let element):
      return (0..<count).flatMap { element.make("\(target)[\($0)]") }
    }
  }
}
