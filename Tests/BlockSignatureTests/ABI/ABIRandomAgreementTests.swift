import BlockSignature
import Foundation
import TestSupport
import Testing

/// The `abi` level against clang's calling convention on random small records, where
/// ``ABIAgreementTests`` has fixed lists: structures and unions of 1–4 members (scalars of every
/// kind clang encodes, bitfields, arrays of them, zero-length and nested arrays, records nested
/// one level and arrays of them), most of them of at most 32 bytes so that the register rules
/// are exercised, in families of near variants (a member replaced by one of the same size, a
/// bitfield's declared type changed, an array split or merged, members wrapped in a nested
/// structure or unwrapped, a structure turned into a union, `packed` added or dropped) so that
/// compatible pairs occur. All of them are compiled in one clang run per target
/// (``ABIAgreementTests/returnsAndParameters(_:triple:prelude:)``), and random pairs, and every
/// pair among the first types, are checked both ways: as arguments and as return values two
/// types are compatible exactly when clang passes (returns) both the same way and they have the
/// same size, as the fixed tests have it.
///
/// The library sees only the encodings, and some C types are encoded alike but laid out (and
/// passed) differently. What the test expects of those:
/// - A NeXT bitfield (`b5`, all clang writes outside the GNU runtime) does not record its
///   declared type, and an `_Atomic` structure (`A{AR3}`) is written without its fields: the
///   layout of a record holding one is an estimate (``LayoutCaveats/bitfieldUnitAssumed``,
///   ``LayoutCaveats/fieldsNotEncoded``), and the checker may answer "not compared" (its
///   `unknownSize` or `unknownLayout` warning) for a pair with one; any answer it does give must be clang's. So
///   for a return value with a `_Float16` inside on x86-64 System V and i386: its space may as
///   well be a `__float128` there (``LayoutCaveats/ambiguousFloatingPoint``); an argument's slot
///   settles it. And for a return value on AArch64 with a union that has a member without bytes:
///   clang returns a homogeneous aggregate as its LLVM type, which for such a union may be that
///   member and bytes, one general-purpose register each.
/// - `__attribute__((packed))` on a record and `__attribute__((aligned(N)))` on a member leave
///   no trace in the encoding: it is the encoding of the same record without them (its natural
///   twin, compiled too). As an argument the frame shows the record's real size: where that
///   differs from the twin's, the checker is told the layout is hidden and is held to the
///   rule above; where it does not, and as a return value (whose size no offset shows), the
///   checker is told exactly what it is told of the twin, so it is held to clang's answer for the
///   twin. (Calling every structure "not compared" because any of them might be packed would
///   make the level useless; the assumption of natural alignment is the one ``TypeLayout``
///   documents.)
///
/// Besides the pairs, each type's layout is checked against clang's `sizeof` and `_Alignof`:
/// the frame's size for the argument always (the frame is clang's own answer), the alignment
/// and the encoding's layout where the library calls them exact (for an attributed record,
/// against its twin).
///
/// `BLOCKSIG_ABI_SEED` fixes the seed (printed on every run); `BLOCKSIG_ABI_COUNT` sets the
/// number of types per target (default 40).
@Suite struct ABIRandomAgreementTests {
  static let seed: UInt64 = {
    if let text = ProcessInfo.processInfo.environment["BLOCKSIG_ABI_SEED"], let value = UInt64(text) { return value }
    return 20_260_314
  }()

  static let count: Int = {
    ProcessInfo.processInfo.environment["BLOCKSIG_ABI_COUNT"].flatMap(Int.init).map { max($0, 2) } ?? 40
  }()

  /// Every pair among this many of the first types is checked.
  static let subset = 24

  /// How many pairs clang calls compatible and not, and how many the checker did not compare.
  struct Counts {
    var compatible = 0, incompatible = 0, notCompared = 0

    mutating func add(_ result: (answer: ABIAgreementTests.Answer, clangAgrees: Bool)) {
      if result.answer == .notCompared {
        notCompared += 1
      } else if result.clangAgrees {
        compatible += 1
      } else {
        incompatible += 1
      }
    }
  }

  @Test(arguments: ABIAgreementTests.targets.map(\.triple))
  func randomRecordsAgreeWithClang(triple: String) throws {
    let model = try #require(ABIAgreementTests.targets.first { $0.triple == triple }?.model)
    print(
      "ABIRandomAgreementTests seed \(Self.seed) count \(Self.count) target \(triple) (BLOCKSIG_ABI_SEED to replay)")
    var generator = RandomRecordGenerator(seed: Self.seed, model: model)
    let types = generator.types(count: Self.count)
    let twins = types.compactMap(\.natural)
    let lowered = try ABIAgreementTests.returnsAndParameters(
      types.map(\.declared) + twins, triple: triple, prelude: RandomRecordGenerator.prelude)
    let values = Array(lowered[..<types.count])
    let twinValues = Dictionary(uniqueKeysWithValues: lowered[types.count...].map { ($0.name, $0) })
    let context = "seed \(Self.seed) count \(Self.count) \(triple)"

    /// The natural twin's lowering, for a record with attributes.
    func twin(_ index: Int) -> ABIAgreementTests.Lowered? { types[index].natural.flatMap { twinValues[$0.name] } }
    // A space may be a `__float128` where clang has one; AArch64 returns a homogeneous union
    // with an empty member aligned above its floats byte by byte.
    let hasFloat128 = triple.hasPrefix("x86_64-linux") || triple.hasPrefix("i386")
    let isAArch64 = triple.hasPrefix("aarch64") || triple.hasPrefix("arm64")
    /// What the encoding (and, for an argument, the frame) tells the checker type `index` is:
    /// the natural twin of an attributed record, unless the frame shows the argument's real size,
    /// whose layout is then hidden.
    func told(_ index: Int, asArgument: Bool) -> ABIAgreementTests.Told {
      let type = types[index]
      var told = ABIAgreementTests.Told(value: values[index], isHidden: false)
      if let twin = twin(index) {
        if asArgument && twin.size != values[index].size { told.isHidden = true } else { told.value = twin }
      }
      if type.encodingHidesLayout
        || (!asArgument && ((type.hasSpace && hasFloat128) || (type.hasUnionWithEmptyMember && isAArch64)))
      {
        told.isHidden = true
      }
      return told
    }

    try Self.expectLayoutsAsClangDoes(types: types, values: values, twin: twin, model: model, context: context)

    // Every pair among the first `subset` types, then random pairs, half of them in one family.
    var pairs: [(Int, Int)] = []
    let first = min(Self.subset, values.count)
    for i in 0..<first { for j in (i + 1)..<first { pairs.append((i, j)) } }
    var rng = SeededRandom(seed: Self.seed ^ 0x5EED_ABCD)
    for _ in 0..<(values.count * 6) {
      let i = Int.random(in: 0..<values.count, using: &rng)
      let relatives = types.indices.filter { $0 != i && types[$0].family == types[i].family }
      let j =
        Bool.random(using: &rng) && !relatives.isEmpty
        ? relatives[Int.random(in: 0..<relatives.count, using: &rng)]
        : Int.random(in: 0..<values.count, using: &rng)
      if i != j { pairs.append((i, j)) }
    }

    let checker = CompatibilityChecker(level: .abi, model: model)
    var arguments = Counts()
    var returns = Counts()
    for (i, j) in pairs {
      let declarations = "\(types[i].text) and \(types[j].text)"
      for asArgument in [true, false] {
        let (first, second) = (values[i], values[j])
        let report =
          asArgument
          ? try checker.check(first.taking, against: second.taking)
          : try checker.check(first.returning, against: second.returning)
        let result = ABIAgreementTests.expectAnswer(
          report, told(i, asArgument: asArgument), told(j, asArgument: asArgument), asArgument: asArgument,
          context: """
            \(context): \(asArgument ? "argument" : "return") \(declarations) \
            (\(asArgument ? first.taking : first.returning) vs \(asArgument ? second.taking : second.returning))
            """)
        if asArgument { arguments.add(result) } else { returns.add(result) }
      }
    }

    let sizes = values.map(\.size)
    print(
      """
      ABIRandomAgreementTests \(context): \(pairs.count) pairs; arguments \(arguments.compatible) compatible, \
      \(arguments.incompatible) not, \(arguments.notCompared) not compared; returns \(returns.compatible) \
      compatible, \(returns.incompatible) not, \(returns.notCompared) not compared; sizes ≤ 16: \
      \(sizes.filter { $0 <= 16 }.count), 17–32: \(sizes.filter { $0 > 16 && $0 <= 32 }.count), > 32: \
      \(sizes.filter { $0 > 32 }.count); in memory: \(values.filter { $0.passedInMemoryAs != nil }.count); \
      hidden layouts: \(types.filter(\.encodingHidesLayout).count), attributed: \(twins.count)
      """)
    // Both answers occur, so the comparison can fail either way (a run with a tiny count may not
    // have them).
    if Self.count >= 20 {
      #expect(arguments.compatible >= 3 && arguments.incompatible >= 3, "\(context): arguments \(arguments)")
      #expect(returns.compatible >= 3 && returns.incompatible >= 3, "\(context): returns \(returns)")
      #expect(sizes.filter { $0 <= 16 }.count >= Self.count / 3, "\(context): too few small records")
    }
  }

  /// Each type's layout against clang's: the size the frame gives its argument (`sizeof`, for
  /// every type), the frame's alignment where it is exact, and the encoding's own layout where
  /// it is exact (an attributed record's against its natural twin's, which its encoding is).
  static func expectLayoutsAsClangDoes(
    types: [RandomType], values: [ABIAgreementTests.Lowered], twin: (Int) -> ABIAgreementTests.Lowered?,
    model: DataModel, context: String
  ) throws {
    for index in values.indices {
      let value = values[index]
      let natural = twin(index) ?? value
      let frame = try SignatureFrame(parsing: value.taking, for: model)
      let argument = try #require(frame.arguments.last)
      #expect(
        argument.size == value.size,
        "\(context): \(types[index].text): the frame gives \(argument.size) bytes for \(value.taking), clang \(value.size)"
      )
      if argument.isExact {
        #expect(
          argument.alignment == natural.alignment,
          """
          \(context): \(types[index].text): the frame gives alignment \(argument.alignment) for \(value.taking), \
          clang \(natural.alignment)
          """)
      }
      let encoding = try SignatureEncoding(parsing: value.returning).returnType
      let layout = try encoding.layout(for: model)
      if layout.isExact {
        #expect(
          layout.size == natural.size && layout.alignment == natural.alignment,
          """
          \(context): \(types[index].text): \(encoding) is \(layout.size) bytes aligned to \(layout.alignment), clang \
          \(natural.size) aligned to \(natural.alignment)
          """)
      }
    }
  }
}
