import BlockSignature
import Foundation
import TestSupport
import Testing

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

extension RandomMember {
  /// A record's members (none for anything else).
  var fieldsIfRecord: [RandomMember] {
    if case .record(_, let members) = self { return members }
    return []
  }
}
