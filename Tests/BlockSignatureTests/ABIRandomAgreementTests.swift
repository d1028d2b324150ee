import BlockSignature
import Foundation
import TestSupport
import Testing

/// The `abi` level against clang's calling convention on random small records, where
/// ``ABIAgreementTests`` has fixed lists: structures and unions of 1–4 members (scalars, small
/// arrays of them, records nested one level), most of them of at most 32 bytes so that the
/// register rules are exercised, in families of near variants (a member replaced by one of the
/// same size, an array split or merged, members wrapped in a nested structure or unwrapped, a
/// structure turned into a union) so that compatible pairs occur. All of them are compiled in
/// one clang run per target (``ABIAgreementTests/returnsAndParameters(_:triple:)``), and random
/// pairs, and every pair among the first types, are checked both ways: as arguments and as
/// return values two types are compatible exactly when clang passes (returns) both the same way
/// and they have the same size, as the fixed tests have it.
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

  @Test(arguments: ABIAgreementTests.targets.map(\.triple))
  func randomRecordsAgreeWithClang(triple: String) throws {
    let model = try #require(ABIAgreementTests.targets.first { $0.triple == triple }?.model)
    print(
      "ABIRandomAgreementTests seed \(Self.seed) count \(Self.count) target \(triple) (BLOCKSIG_ABI_SEED to replay)")
    var generator = RandomRecordGenerator(seed: Self.seed, model: model)
    let types = generator.types(count: Self.count)
    let values = try ABIAgreementTests.returnsAndParameters(types.map(\.type), triple: triple)
    let context = "seed \(Self.seed) count \(Self.count) \(triple)"

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
    var arguments = (compatible: 0, incompatible: 0)
    var returns = (compatible: 0, incompatible: 0)
    for (i, j) in pairs {
      let (a, b) = (values[i], values[j])
      let declarations = "\(types[i].text) and \(types[j].text)"

      let argumentsAgree = a.passedAs == b.passedAs && a.size == b.size
      let argument = try checker.check(a.taking, against: b.taking)
      #expect(
        argument.isCompatible == argumentsAgree,
        """
        \(context): argument \(declarations): clang passes \(a.passedAs) (\(a.size) bytes) and \(b.passedAs) \
        (\(b.size) bytes); the checker says \(argument.diagnostics.map(\.description)) for \(a.taking) vs \(b.taking)
        """)
      if argumentsAgree { arguments.compatible += 1 } else { arguments.incompatible += 1 }

      let returnsAgree = a.returnedAs == b.returnedAs && a.size == b.size
      let returned = try checker.check(a.returning, against: b.returning)
      #expect(
        returned.isCompatible == returnsAgree,
        """
        \(context): return \(declarations): clang returns \(a.returnedAs) (\(a.size) bytes) and \(b.returnedAs) \
        (\(b.size) bytes); the checker says \(returned.diagnostics.map(\.description)) for \(a.returning) vs \
        \(b.returning)
        """)
      if returnsAgree { returns.compatible += 1 } else { returns.incompatible += 1 }
    }

    let sizes = values.map(\.size)
    print(
      """
      ABIRandomAgreementTests \(context): \(pairs.count) pairs; arguments \(arguments.compatible) compatible, \
      \(arguments.incompatible) not; returns \(returns.compatible) compatible, \(returns.incompatible) not; \
      sizes ≤ 16: \(sizes.filter { $0 <= 16 }.count), 17–32: \(sizes.filter { $0 > 16 && $0 <= 32 }.count), \
      > 32: \(sizes.filter { $0 > 32 }.count); in memory: \(values.filter { $0.passedInMemoryAs != nil }.count)
      """)
    // Both answers occur, so the comparison can fail either way (a run with a tiny count may not
    // have them).
    if Self.count >= 20 {
      #expect(arguments.compatible >= 3 && arguments.incompatible >= 3, "\(context): arguments \(arguments)")
      #expect(returns.compatible >= 3 && returns.incompatible >= 3, "\(context): returns \(returns)")
      #expect(sizes.filter { $0 <= 16 }.count >= Self.count / 3, "\(context): too few small records")
    }
  }
}

/// A member of a random record: a scalar, an array of one, or a record nested in it.
indirect enum RandomMember: Equatable {
  case scalar(String)
  case array(RandomMember, Int)
  case record(isUnion: Bool, [RandomMember])

  /// The member declared as `name`: `int m0`, `void * m1[3]`, `struct { … } m2[2]`.
  func declaration(_ name: String) -> String {
    switch self {
    case .scalar(let spelling): "\(spelling) \(name)"
    case .array(let element, let count): element.declaration("\(name)[\(count)]")
    case .record(let isUnion, let members): "\(isUnion ? "union" : "struct") { \(Self.body(members))} \(name)"
    }
  }

  static func body(_ members: [RandomMember]) -> String {
    members.enumerated().map { "\($1.declaration("m\($0)")); " }.joined()
  }

  var leafCount: Int {
    switch self {
    case .scalar: 1
    case .array(let element, _): element.leafCount
    case .record(_, let members): members.map(\.leafCount).reduce(0, +)
    }
  }

  /// The scalar at leaf `index` (depth first).
  func leaf(_ index: Int) -> String {
    var found = ""
    _ = replacingLeaf(index) { spelling in
      found = spelling
      return spelling
    }
    return found
  }

  /// The scalar at leaf `index` (depth first) replaced by `change(scalar)`.
  func replacingLeaf(_ index: Int, _ change: (String) -> String) -> RandomMember {
    switch self {
    case .scalar(let spelling): return .scalar(change(spelling))
    case .array(let element, let count): return .array(element.replacingLeaf(index, change), count)
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

  /// The scalars and their sizes on the model.
  var scalars: [(spelling: String, size: Int)] {
    [
      ("char", 1), ("_Bool", 1), ("short", 2), ("int", 4), ("float", 4), ("long long", 8), ("double", 8),
      ("void *", model.pointerSize), ("_Complex float", 8), ("_Complex double", 16),
      ("long double", model.longDoubleSize),
    ] + (model.hasInt128 ? [("__int128", 16)] : [])
  }

  private mutating func pick<T>(_ options: [T]) -> T { options[Int.random(in: 0..<options.count, using: &rng)] }

  private mutating func chance(_ numerator: Int, in denominator: Int) -> Bool {
    Int.random(in: 0..<denominator, using: &rng) < numerator
  }

  mutating func scalar() -> String {
    // Small scalars more often: they make the small records whose registers differ.
    chance(1, in: 4) ? pick(scalars).spelling : pick(["char", "short", "int", "float", "double", "long long"])
  }

  /// A rough size (alignment padding ignored), to keep most records small.
  func estimatedSize(_ member: RandomMember) -> Int {
    switch member {
    case .scalar(let spelling): scalars.first { $0.spelling == spelling }?.size ?? 8
    case .array(let element, let count): estimatedSize(element) * count
    case .record(let isUnion, let members):
      isUnion ? members.map(estimatedSize).max() ?? 0 : members.map(estimatedSize).reduce(0, +)
    }
  }

  mutating func member(depth: Int) -> RandomMember {
    let roll = Int.random(in: 0..<10, using: &rng)
    if depth == 0, roll >= 8 {
      let inner = RandomMember.record(
        isUnion: chance(1, in: 4), (0..<Int.random(in: 1...3, using: &rng)).map { _ in member(depth: 1) })
      return chance(1, in: 4) ? .array(inner, 2) : inner
    }
    if roll >= 6 { return .array(.scalar(scalar()), Int.random(in: 1...4, using: &rng)) }
    return .scalar(scalar())
  }

  /// A top-level type: mostly a structure or union of 1–4 members of at most 32 bytes, now and
  /// then a larger one or a scalar.
  mutating func topLevel() -> RandomMember {
    if chance(1, in: 10) { return .scalar(pick(scalars).spelling) }
    var record = RandomMember.scalar("int")
    for _ in 0..<6 {
      record = .record(
        isUnion: chance(1, in: 5), (0..<Int.random(in: 1...4, using: &rng)).map { _ in member(depth: 0) })
      if estimatedSize(record) <= 32 || chance(1, in: 6) { break }
    }
    return record
  }

  /// A near variant: one or two changes that often keep the size and the registers.
  mutating func variant(of type: RandomMember) -> RandomMember {
    var result = type
    for _ in 0..<Int.random(in: 1...2, using: &rng) { result = mutate(result) }
    return result
  }

  private mutating func mutate(_ type: RandomMember) -> RandomMember {
    guard case .record(let isUnion, var members) = type else {
      let size = estimatedSize(type)
      let same = scalars.filter { $0.size == size }.map(\.spelling)
      return chance(1, in: 3) ? .record(isUnion: false, [type]) : .scalar(pick(same))
    }
    let index = Int.random(in: 0..<members.count, using: &rng)
    switch Int.random(in: 0..<8, using: &rng) {
    case 0, 1:
      // A scalar replaced by another of the same size (`int` → `float`, `double` → `long long`).
      let leaf = Int.random(in: 0..<type.leafCount, using: &rng)
      let spelling = type.leaf(leaf)
      let size = scalars.first { $0.spelling == spelling }?.size ?? 0
      let same = scalars.filter { $0.size == size && $0.spelling != spelling }.map(\.spelling)
      guard !same.isEmpty else { break }
      let replacement = pick(same)
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
      // Members wrapped in a nested structure (only scalars and arrays of them: one level).
      guard !isUnion else { break }
      let end = Int.random(in: index..<members.count, using: &rng)
      let slice = Array(members[index...end])
      guard
        !slice.contains(where: {
          if case .record = $0 { true } else if case .array(.record, _) = $0 { true } else { false }
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
      // A scalar replaced by any other: mostly a near miss.
      let leaf = Int.random(in: 0..<type.leafCount, using: &rng)
      let replacement = scalar()
      return type.replacingLeaf(leaf) { _ in replacement }
    }
    // The change did not apply: a scalar replaced instead.
    let leaf = Int.random(in: 0..<type.leafCount, using: &rng)
    let replacement = scalar()
    return type.replacingLeaf(leaf) { _ in replacement }
  }

  /// `count` types in families (a random type, then 0–3 variants of it), each as
  /// ``ABIAgreementTests/returnsAndParameters(_:triple:)`` takes it, with its C text.
  mutating func types(
    count: Int
  ) -> [(type: (name: String, declaration: String?, spelling: String), text: String, family: Int)] {
    var result: [(type: (name: String, declaration: String?, spelling: String), text: String, family: Int)] = []
    var family = 0
    while result.count < count {
      let base = topLevel()
      var members = [base]
      for _ in 0..<Int.random(in: 0...3, using: &rng) { members.append(variant(of: pick(members))) }
      for member in members where result.count < count {
        counter += 1
        switch member {
        case .record(let isUnion, let fields):
          let spelling = "\(isUnion ? "union" : "struct") R\(counter)"
          let declaration = "\(spelling) { \(RandomMember.body(fields))}"
          result.append(((name: "R\(counter)", declaration: declaration, spelling: spelling), declaration, family))
        default:
          let spelling = member.declaration("").trimmingCharacters(in: .whitespaces)
          result.append(((name: "X\(counter)", declaration: nil, spelling: spelling), spelling, family))
        }
      }
      family += 1
    }
    return result
  }
}
