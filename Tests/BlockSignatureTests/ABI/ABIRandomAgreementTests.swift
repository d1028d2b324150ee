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

/// A member of a random record: a scalar, a bitfield, an array of one, a record nested in it, or
/// one of these over-aligned.
indirect enum RandomMember: Equatable {
  case scalar(String)
  /// `type name : width`; width 0 is an unnamed `type : 0`.
  case bitfield(String, width: Int)
  case array(RandomMember, Int)
  case record(isUnion: Bool, [RandomMember])
  /// The member declared with `__attribute__((aligned(N)))`.
  case aligned(RandomMember, Int)

  /// The member declared as `name`: `int m0`, `void * m1[3]`, `struct { … } m2[2]`, `char m3 : 5`.
  func declaration(_ name: String) -> String {
    switch self {
    case .scalar(let spelling): "\(spelling) \(name)"
    case .bitfield(let spelling, 0): "\(spelling) : 0"
    case .bitfield(let spelling, let width): "\(spelling) \(name) : \(width)"
    case .array(let element, let count): element.declaration("\(name)[\(count)]")
    case .record(let isUnion, let members): "\(isUnion ? "union" : "struct") { \(Self.body(members))} \(name)"
    case .aligned(let member, let alignment): "\(member.declaration(name)) __attribute__((aligned(\(alignment))))"
    }
  }

  static func body(_ members: [RandomMember]) -> String {
    members.enumerated().map { "\($1.declaration("m\($0)")); " }.joined()
  }

  var leafCount: Int {
    switch self {
    case .scalar, .bitfield: 1
    case .array(let element, _): element.leafCount
    case .record(_, let members): members.map(\.leafCount).reduce(0, +)
    case .aligned(let member, _): member.leafCount
    }
  }

  /// The scalar or bitfield at leaf `index` (depth first).
  func leaf(_ index: Int) -> RandomMember {
    var found = self
    _ = replacingLeaf(index) { leaf in
      found = leaf
      return leaf
    }
    return found
  }

  /// The scalar or bitfield at leaf `index` (depth first) replaced by `change(leaf)`.
  func replacingLeaf(_ index: Int, _ change: (RandomMember) -> RandomMember) -> RandomMember {
    switch self {
    case .scalar, .bitfield: return change(self)
    case .array(let element, let count): return .array(element.replacingLeaf(index, change), count)
    case .aligned(let member, let alignment): return .aligned(member.replacingLeaf(index, change), alignment)
    case .record(let isUnion, var members):
      var remaining = index
      for position in members.indices {
        if remaining < members[position].leafCount {
          members[position] = members[position].replacingLeaf(remaining, change)
          break
        }
        remaining -= members[position].leafCount
      }
      return .record(isUnion: isUnion, members)
    }
  }

  /// The member without its `aligned` attributes: what its encoding describes.
  var natural: RandomMember {
    switch self {
    case .scalar, .bitfield: self
    case .array(let element, let count): .array(element.natural, count)
    case .record(let isUnion, let members): .record(isUnion: isUnion, members.map(\.natural))
    case .aligned(let member, _): member.natural
    }
  }

  /// Whether any part of the member satisfies `test`.
  func contains(where test: (RandomMember) -> Bool) -> Bool {
    if test(self) { return true }
    switch self {
    case .scalar, .bitfield: return false
    case .array(let element, _): return element.contains(where: test)
    case .record(_, let members): return members.contains { $0.contains(where: test) }
    case .aligned(let member, _): return member.contains(where: test)
    }
  }

  /// Whether any part takes bytes (not an array of no elements, not a bitfield of no width).
  var hasBytes: Bool {
    switch self {
    case .scalar: true
    case .bitfield(_, let width): width > 0
    case .array(let element, let count): count > 0 && element.hasBytes
    case .record(_, let members): members.contains(where: \.hasBytes)
    case .aligned(let member, _): member.hasBytes
    }
  }

  /// Whether every array of records has records with bytes (a mutation may take the last one
  /// away): C has no arrays of records of no bytes under Microsoft layout.
  var arraysHaveBytes: Bool {
    !contains {
      if case .array(let element, _) = $0, element.contains(where: { if case .record = $0 { true } else { false } }) {
        !element.hasBytes
      } else {
        false
      }
    }
  }

  /// Whether a union inside has a member without bytes (an empty record, an array of no
  /// elements), which may be the union's LLVM type (``ABIAgreementTests/hiddenLayoutsAreNotGuessed(triple:)``).
  var hasUnionWithEmptyMember: Bool {
    contains {
      if case .record(true, let members) = $0 { members.contains { !$0.hasBytes } } else { false }
    }
  }

  /// Whether a `_Float16` is inside: a space, which as a return value may as well be a
  /// `__float128` (an argument's slot tells them apart).
  var hasSpace: Bool {
    contains {
      if case .scalar(let spelling) = $0 { spelling.hasSuffix("_Float16") } else { false }
    }
  }

  /// Whether the encoding leaves the layout to an estimate: a bitfield (its declared type is not
  /// written) or an `_Atomic` structure (written without its fields).
  var encodingHidesLayout: Bool {
    contains {
      switch $0 {
      case .bitfield: true
      case .scalar(let spelling): spelling.hasPrefix("_Atomic(struct")
      default: false
      }
    }
  }
}

/// One random type: its declaration and spelling, its family, and the natural twin of an
/// attributed record.
struct RandomType {
  var name: String
  var declaration: String?
  var spelling: String
  var family: Int
  /// The same record without `packed` and `aligned` (what its encoding describes), for one that
  /// has them.
  var natural: (name: String, declaration: String?, spelling: String)?
  /// A bitfield or an `_Atomic` structure somewhere inside (``RandomMember/encodingHidesLayout``).
  var encodingHidesLayout: Bool
  /// A `_Float16` somewhere inside (``RandomMember/hasSpace``).
  var hasSpace: Bool
  /// A union with a member without bytes somewhere inside (``RandomMember/hasUnionWithEmptyMember``).
  var hasUnionWithEmptyMember: Bool

  /// As ``ABIAgreementTests/returnsAndParameters(_:triple:prelude:)`` takes it.
  var declared: (name: String, declaration: String?, spelling: String) { (name, declaration, spelling) }
  /// The C text, for the messages.
  var text: String { declaration ?? spelling }
}

/// Random records (and a few scalars) for ``ABIRandomAgreementTests``, in families: a random type
/// and near variants of it.
struct RandomRecordGenerator {
  var rng: SeededRandom
  let model: DataModel
  var counter = 0

  init(seed: UInt64, model: DataModel) {
    rng = SeededRandom(seed: seed)
    self.model = model
  }

  /// The declarations some scalars need: enums with a fixed underlying type (encoded as that
  /// type: `C`, `s`, `I`, `q`) and a structure for `_Atomic` (encoded `A{AR3}`, no fields).
  static let prelude = """
    enum EU8 : unsigned char { EU8_0 };
    enum ES16 : short { ES16_0 };
    enum EU32 : unsigned { EU32_0 };
    enum ES64 : long long { ES64_0 };
    struct AR3 { char a, b, c; };

    """

  /// The scalars and their sizes on the model (an `_Atomic` one's promoted size).
  var scalars: [(spelling: String, size: Int)] {
    let longDouble = model.longDoubleSize
    return [
      ("char", 1), ("signed char", 1), ("unsigned char", 1), ("_Bool", 1), ("short", 2), ("unsigned short", 2),
      ("int", 4), ("unsigned", 4), ("float", 4), ("long", model.longSize), ("unsigned long", model.longSize),
      ("long long", 8), ("unsigned long long", 8), ("double", 8), ("void *", model.pointerSize),
      ("_Complex float", 8), ("_Complex double", 16), ("long double", longDouble),
      ("_Complex long double", 2 * longDouble), ("_Float16", 2), ("_Complex _Float16", 4), ("enum EU8", 1),
      ("enum ES16", 2), ("enum EU32", 4), ("enum ES64", 8), ("_Atomic(char)", 1), ("_Atomic(short)", 2),
      ("_Atomic(int)", 4), ("_Atomic(unsigned)", 4), ("_Atomic(float)", 4), ("_Atomic(long long)", 8),
      ("_Atomic(double)", 8), ("_Atomic(void *)", model.pointerSize), ("_Atomic(_Complex float)", 8),
      ("_Atomic(long double)", longDouble), ("_Atomic(struct AR3)", 4),
    ] + (model.hasInt128 ? [("__int128", 16), ("unsigned __int128", 16)] : [])
  }

  /// The declared types of bitfields and their widths in bits.
  var bitfieldTypes: [(spelling: String, bits: Int)] {
    [
      ("char", 8), ("unsigned char", 8), ("short", 16), ("unsigned short", 16), ("int", 32), ("unsigned", 32),
      ("long", model.longSize * 8), ("long long", 64), ("unsigned long long", 64), ("_Bool", 1),
    ]
  }

  /// The attributes a top-level record may have.
  static let attributes = ["packed", "packed", "packed", "aligned(16)", "aligned(8)", "packed, aligned(4)"]

  private mutating func pick<T>(_ options: [T]) -> T { options[Int.random(in: 0..<options.count, using: &rng)] }

  private mutating func chance(_ numerator: Int, in denominator: Int) -> Bool {
    Int.random(in: 0..<denominator, using: &rng) < numerator
  }

  mutating func scalar() -> String {
    // Small scalars more often: they make the small records whose registers differ.
    chance(1, in: 4)
      ? pick(scalars).spelling
      : pick(["char", "short", "int", "float", "double", "long long", "unsigned", "long double"])
  }

  mutating func bitfield() -> RandomMember {
    let (spelling, bits) = pick(bitfieldTypes)
    return .bitfield(spelling, width: chance(1, in: 6) ? 0 : Int.random(in: 1...bits, using: &rng))
  }

  /// A rough size (alignment padding ignored), to keep most records small.
  func estimatedSize(_ member: RandomMember) -> Int {
    switch member {
    case .scalar(let spelling): scalars.first { $0.spelling == spelling }?.size ?? 8
    case .bitfield(_, let width): (width + 7) / 8
    case .array(let element, let count): estimatedSize(element) * count
    case .record(let isUnion, let members):
      isUnion ? members.map(estimatedSize).max() ?? 0 : members.map(estimatedSize).reduce(0, +)
    case .aligned(let member, let alignment): max(estimatedSize(member), alignment)
    }
  }

  mutating func member(depth: Int, bitfields: Bool) -> RandomMember {
    let roll = Int.random(in: 0..<20, using: &rng)
    var result: RandomMember
    if depth == 0, roll >= 16 {
      let inner = RandomMember.record(
        isUnion: chance(1, in: 4),
        (0..<Int.random(in: 1...3, using: &rng)).map { _ in member(depth: 1, bitfields: bitfields) })
      // Arrays of records, now and then of arrays of them; not of records without bytes, which
      // Microsoft layout makes 4 bytes whatever their alignment (no array of them then).
      result =
        chance(1, in: 4) && inner.hasBytes
        ? .array(chance(1, in: 3) ? .array(inner, Int.random(in: 1...2, using: &rng)) : inner, 2) : inner
    } else if roll >= 12 {
      let element = RandomMember.scalar(scalar())
      if chance(1, in: 8) {
        result = .array(element, 0)
      } else if chance(1, in: 8) {
        result = .array(.array(element, Int.random(in: 1...3, using: &rng)), Int.random(in: 1...3, using: &rng))
      } else {
        result = .array(element, Int.random(in: 1...4, using: &rng))
      }
    } else if bitfields, roll >= 7 {
      return bitfield()
    } else {
      result = .scalar(scalar())
    }
    return chance(1, in: 16) ? .aligned(result, pick([4, 8, 16])) : result
  }

  /// A top-level type: mostly a structure or union of 1–4 members of at most 32 bytes, now and
  /// then a larger one or a scalar; one record in eight has bitfields, one in eight attributes.
  mutating func topLevel() -> (type: RandomMember, attributes: String) {
    if chance(1, in: 10) { return (.scalar(pick(scalars).spelling), "") }
    let bitfields = chance(1, in: 8)
    var record = RandomMember.scalar("int")
    for _ in 0..<6 {
      record = .record(
        isUnion: chance(1, in: 5),
        (0..<Int.random(in: 1...4, using: &rng)).map { _ in member(depth: 0, bitfields: bitfields) })
      if estimatedSize(record) <= 32 || chance(1, in: 6) { break }
    }
    return (record, chance(1, in: 8) ? pick(Self.attributes) : "")
  }

  /// A near variant: one or two changes that often keep the size and the registers; now and then
  /// the attributes added or dropped.
  mutating func variant(of type: (type: RandomMember, attributes: String)) -> (type: RandomMember, attributes: String) {
    var result = type.type
    for _ in 0..<Int.random(in: 1...2, using: &rng) { result = mutate(result) }
    guard case .record = result, chance(1, in: 6) else { return (result, type.attributes) }
    return (result, type.attributes.isEmpty ? pick(Self.attributes) : "")
  }

  /// A leaf replaced by one of the same size: a scalar by another (`int` → `float`,
  /// `double` → `long long`), a bitfield's declared type by another that holds its width (the
  /// encoding stays the same).
  private mutating func sameSize(_ leaf: RandomMember) -> RandomMember? {
    switch leaf {
    case .scalar(let spelling):
      let size = scalars.first { $0.spelling == spelling }?.size ?? 0
      let same = scalars.filter { $0.size == size && $0.spelling != spelling }.map(\.spelling)
      return same.isEmpty ? nil : .scalar(pick(same))
    case .bitfield(let spelling, let width):
      let fitting = bitfieldTypes.filter { $0.spelling != spelling && $0.bits >= max(width, 2) }.map(\.spelling)
      return fitting.isEmpty ? nil : .bitfield(pick(fitting), width: width)
    default:
      return nil
    }
  }

  /// A leaf replaced by any other: a scalar by a random scalar, a bitfield by another width.
  private mutating func other(_ leaf: RandomMember) -> RandomMember {
    if case .bitfield(let spelling, _) = leaf {
      let bits = bitfieldTypes.first { $0.spelling == spelling }?.bits ?? 8
      return .bitfield(spelling, width: Int.random(in: 0...bits, using: &rng))
    }
    return .scalar(scalar())
  }

  private mutating func mutate(_ type: RandomMember) -> RandomMember {
    guard case .record(let isUnion, var members) = type else {
      let size = estimatedSize(type)
      let same = scalars.filter { $0.size == size }.map(\.spelling)
      return chance(1, in: 3) || same.isEmpty ? .record(isUnion: false, [type]) : .scalar(pick(same))
    }
    let index = Int.random(in: 0..<members.count, using: &rng)
    switch Int.random(in: 0..<8, using: &rng) {
    case 0, 1:
      let leaf = Int.random(in: 0..<type.leafCount, using: &rng)
      guard let replacement = sameSize(type.leaf(leaf)) else { break }
      return type.replacingLeaf(leaf) { _ in replacement }
    case 2:
      // An array split in two (`int m[3]` → `int a[1]; int b[2]`), in a structure.
      guard !isUnion, case .array(let element, let count) = members[index], count >= 2 else { break }
      let split = Int.random(in: 1..<count, using: &rng)
      let one: (Int) -> RandomMember = { $0 == 1 && split % 2 == 0 ? element : .array(element, $0) }
      members.replaceSubrange(index...index, with: [one(split), one(count - split)])
      return .record(isUnion: false, members)
    case 3:
      // Two equal neighbours merged into an array.
      guard !isUnion, index + 1 < members.count, members[index] == members[index + 1],
        case .scalar = members[index]
      else { break }
      members.replaceSubrange(index...(index + 1), with: [.array(members[index], 2)])
      return .record(isUnion: false, members)
    case 4:
      // Members wrapped in a nested structure (only scalars, bitfields and arrays of scalars:
      // one level).
      guard !isUnion else { break }
      let end = Int.random(in: index..<members.count, using: &rng)
      let slice = Array(members[index...end])
      guard
        !slice.contains(where: {
          $0.contains {
            if case .record = $0 { true } else { false }
          }
        })
      else { break }
      members.replaceSubrange(index...end, with: [.record(isUnion: false, slice)])
      return .record(isUnion: false, members)
    case 5:
      // A nested structure unwrapped.
      guard !isUnion, case .record(false, let inner) = members[index] else { break }
      members.replaceSubrange(index...index, with: inner)
      return .record(isUnion: false, members)
    case 6:
      // A structure of one member as a union, or the other way round (a union of several as a
      // structure changes the size: a near miss).
      return .record(isUnion: !isUnion, members)
    default:
      // A leaf replaced by any other: mostly a near miss.
      let leaf = Int.random(in: 0..<type.leafCount, using: &rng)
      let replacement = other(type.leaf(leaf))
      return type.replacingLeaf(leaf) { _ in replacement }
    }
    // The change did not apply: a leaf replaced instead.
    let leaf = Int.random(in: 0..<type.leafCount, using: &rng)
    let replacement = other(type.leaf(leaf))
    return type.replacingLeaf(leaf) { _ in replacement }
  }

  /// `count` types in families (a random type, then 0–3 variants of it).
  mutating func types(count: Int) -> [RandomType] {
    var result: [RandomType] = []
    var family = 0
    while result.count < count {
      let base = topLevel()
      var members = [base]
      for _ in 0..<Int.random(in: 0...3, using: &rng) { members.append(variant(of: pick(members))) }
      for (member, attributes) in members where result.count < count && member.arraysHaveBytes {
        counter += 1
        switch member {
        case .record(let isUnion, let fields):
          let keyword = isUnion ? "union" : "struct"
          let suffix = attributes.isEmpty ? "" : " __attribute__((\(attributes)))"
          var type = RandomType(
            name: "R\(counter)", declaration: "\(keyword) R\(counter) { \(RandomMember.body(fields))}\(suffix)",
            spelling: "\(keyword) R\(counter)", family: family, encodingHidesLayout: member.encodingHidesLayout,
            hasSpace: member.hasSpace, hasUnionWithEmptyMember: member.hasUnionWithEmptyMember)
          if !attributes.isEmpty || member != member.natural {
            type.natural = (
              name: "N\(counter)",
              declaration: "\(keyword) N\(counter) { \(RandomMember.body(member.natural.fieldsIfRecord))}",
              spelling: "\(keyword) N\(counter)"
            )
          }
          result.append(type)
        default:
          let spelling = member.declaration("").trimmingCharacters(in: .whitespaces)
          result.append(
            RandomType(
              name: "X\(counter)", spelling: spelling, family: family,
              encodingHidesLayout: member.encodingHidesLayout, hasSpace: member.hasSpace,
              hasUnionWithEmptyMember: member.hasUnionWithEmptyMember))
        }
      }
      family += 1
    }
    return result
  }
}

extension RandomMember {
  /// A record's members (none for anything else).
  var fieldsIfRecord: [RandomMember] {
    if case .record(_, let members) = self { return members }
    return []
  }
}
