import BlockSignature
import Foundation
import TestSupport
import Testing

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
