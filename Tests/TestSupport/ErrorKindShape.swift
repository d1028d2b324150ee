// The check every error kind passes: a `String` enum whose cases read back from
// their raw values, with the raw values the JSON reports print and a description of each.

import Testing

/// Asserts that every case of `kind` reads back from its raw value, that the raw values are
/// `rawValues` in order, and that each case has a non-empty description no other case has.
package func expectErrorKindShape<Kind>(
  _ kind: Kind.Type, rawValues: [String], sourceLocation: SourceLocation = #_sourceLocation
) where Kind: RawRepresentable & CaseIterable & CustomStringConvertible & Hashable & Sendable, Kind.RawValue == String {
  #expect(Kind.allCases.map(\.rawValue) == rawValues, "\(Kind.self)", sourceLocation: sourceLocation)
  var seen: [String: Kind] = [:]
  for value in Kind.allCases {
    #expect(Kind(rawValue: value.rawValue) == value, "\(Kind.self).\(value.rawValue)", sourceLocation: sourceLocation)
    #expect(!value.description.isEmpty, "\(Kind.self).\(value.rawValue)", sourceLocation: sourceLocation)
    if let other = seen[value.description] {
      Issue.record(
        "\(Kind.self).\(value.rawValue) and .\(other.rawValue) share \"\(value.description)\"",
        sourceLocation: sourceLocation)
    }
    seen[value.description] = value
  }
  #expect(Kind(rawValue: "") == nil, "\(Kind.self)", sourceLocation: sourceLocation)
}
