import Testing

@testable import BlockSignature

/// The parser's shared values for nodes over a primitive stand for exactly the nodes they
/// replace, and parsing gives the same trees with them.
@Suite struct SharedNodeTests {
  @Test func everySharedValueIsTheNodeItReplaces() {
    for code in TypeCode.allCases {
      let primitive = TypeEncoding.primitive(code)
      #expect(TypeEncoding.shared(.pointer, over: primitive) == .pointer(primitive))
      #expect(TypeEncoding.shared(.complex, over: primitive) == .complex(primitive))
      #expect(TypeEncoding.shared(.atomic, over: primitive) == .atomic(primitive))
      for qualifier in TypeQualifier.allCases {
        #expect(TypeEncoding.shared(.qualified(qualifier), over: primitive) == .qualified(qualifier, primitive))
        #expect(
          TypeEncoding.shared(.qualified(qualifier), over: .pointer(primitive))
            == .qualified(qualifier, .pointer(primitive)))
      }
    }
    // Nothing is shared over other nodes.
    #expect(TypeEncoding.shared(.pointer, over: .object(className: nil)) == nil)
    #expect(TypeEncoding.shared(.pointer, over: .pointer(.primitive(.int))) == nil)
    #expect(TypeEncoding.shared(.complex, over: .pointer(.primitive(.int))) == nil)
  }

  @Test func parsedTreesUseThemAndPrintTheSame() throws {
    for text in ["^v", "r*", "r^v", "jd", "A^i", "^^i", "n^{S=i}", "Vv", "{S=^ir^cjf}", "[4^s]", "^@", "r^@?"] {
      let type = try TypeEncoding(parsing: text)
      #expect(type.description == text)
    }
    // What clang writes for `void (^)(const void *, int *, _Complex double)`.
    let signature = try SignatureEncoding(parsing: "v40@?0r^v8^i16jd24")
    #expect(
      signature.arguments.map(\.type) == [
        .block(signature: nil), .qualified(.const, .pointer(.primitive(.void))), .pointer(.primitive(.int)),
        .complex(.primitive(.double)),
      ])
  }
}
