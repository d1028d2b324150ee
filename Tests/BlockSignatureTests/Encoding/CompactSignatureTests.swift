import BlockSignature
import Foundation
import TestSupport
import Testing

/// `CompactSignature` (one buffer of nodes) against `SignatureEncoding` (the tree): the same
/// tree made from the nodes, the same errors, the same layout on every model.
@Suite struct CompactSignatureTests {
  @Test func documentedExample() throws {
    let signature = try CompactSignature(parsing: "i24@?0{P=dic}8")
    #expect(signature.argumentCount == 2)
    #expect(signature.kind == .block)
    #expect(signature.returnType == .primitive(.int))
    #expect(signature.frameLength == 24)
    #expect(signature.offset(ofArgument: 1) == 8)
    let fields: [TypeEncoding.Field] = [
      .init(type: .primitive(.double)), .init(type: .primitive(.int)), .init(type: .primitive(.char)),
    ]
    #expect(signature.argumentType(at: 1) == .structure(name: "P", fields: fields))
    #expect(try signature.layout(for: .x86_64SysV).frameLength == 24)
    #expect(signature.tree == (try SignatureEncoding(parsing: "i24@?0{P=dic}8")))
    #expect(signature.description == "i24@?0{P=dic}8")
    let vector = try CompactSignature(parsing: "v24@?08")
    #expect(vector.argumentType(at: 1) == .unencodable)
    #expect(vector.offset(ofArgument: 1) == 8)
    #expect(try CompactSignature(parsing: "i24@?0i8r*12").layout(for: .x86_64SysV).frameLength == 20)
  }

  @Test func equalTextsAreEqualSignatures() throws {
    let a = try CompactSignature(parsing: "v24@0:8@16")
    let b = try CompactSignature(parsing: String("xv24@0:8@16".dropFirst()))
    #expect(a == b)
    #expect(a.hashValue == b.hashValue)
    #expect(a != (try CompactSignature(parsing: "v24@0:8@17")))
    #expect(Set([a, b]).count == 1)
    #expect(a.kind == .method)
  }

  /// The names are ranges of the signature's own copy of the text, not of the caller's bytes.
  /// The signature is what clang writes for `void (^)(NSMutableDictionary *, struct
  /// LongStructureName)` on an Apple target (`-target x86_64-apple-macos11 -fblocks -S
  /// -emit-llvm`), where class names are encoded.
  @Test func keepsItsOwnText() throws {
    let text = "v20@?0@\"NSMutableDictionary\"8{LongStructureName=i}16"
    var bytes = Array(text.utf8)
    let signature = try bytes.withUnsafeBufferPointer { try CompactSignature(parsingBytes: $0) }
    for index in bytes.indices { bytes[index] = 0x21 }
    #expect(signature.argumentType(at: 1) == .object(className: "NSMutableDictionary"))
    #expect(
      signature.argumentType(at: 2) == .structure(name: "LongStructureName", fields: [.init(type: .primitive(.int))]))
    #expect(signature.tree.description == text)
  }

  /// The nodes and the text in one buffer: a few bytes per byte of text. The signature is what
  /// clang writes for `void (^)(CFStringRef, struct CGRect)`.
  @Test func storageIsProportionalToTheText() throws {
    let text = "v48@?0^{__CFString=}8{CGRect={CGPoint=dd}{CGSize=dd}}16"
    let signature = try CompactSignature(parsing: text)
    #expect(signature.storageSize > text.utf8.count)
    #expect(signature.storageSize <= 16 * text.utf8.count + 64)
  }

  @Test(arguments: DataModel.allBuiltIn.map(\.name))
  func handPickedInputsAgree(modelName: String) throws {
    let model = try #require(DataModel(named: modelName))
    for text in SignatureFrameTests.handPicked { expectCompactAgreement(Array(text.utf8), models: [model]) }
    for bytes in nestingLimitInputs { expectCompactAgreement(bytes, models: [model]) }
  }

  /// Signatures longer than the first try's nodes on the machine stack, and nested deeper.
  @Test func longAndDeepSignaturesAgree() {
    let wide = "v" + String(repeating: "i", count: 300) + "{S=" + String(repeating: "\"f\"d", count: 200) + "}"
    expectCompactAgreement(Array(wide.utf8))
    let deep = "v@?" + String(repeating: "{A=^", count: 40) + "i" + String(repeating: "}", count: 40)
    expectCompactAgreement(Array(deep.utf8))
    let offsets = "v2424@?0" + (1...80).map { "i\(8 + 4 * $0)" }.joined()
    expectCompactAgreement(Array(offsets.utf8))
    let runs = "v40@?0" + String(repeating: "{S=[0s]}", count: 30) + "8824"
    expectCompactAgreement(Array(runs.utf8))
  }

  /// The benchmark corpus (3000 block and 1200 method signatures written by clang).
  @Test func benchmarkCorpusAgrees() throws {
    let signatures = try benchmarkCorpusSignatures()
    for signature in signatures { #expect(expectCompactAgreement(Array(signature.utf8))) }
    #expect(signatures.count >= 4000)
  }

  /// Random byte strings over the grammar's alphabet: both forms accept and reject the same
  /// inputs, with the same error, and agree on every number.
  @Test func randomInputsAgree() throws {
    let seed = ProcessInfo.processInfo.environment["BLOCKSIG_COMPACT_SEED"].flatMap(UInt64.init) ?? 20_261_129
    print("CompactSignatureTests.randomInputsAgree seed \(seed) (BLOCKSIG_COMPACT_SEED to replay)")
    var rng = SeededRandom(seed: seed)
    let pieces = ["{S=\"a\"i\"b\"b0i3}", "@?<v@?i>"]
    var valid = 0
    for bytes in randomSignatureInputs(count: 10_000, pieces: pieces, using: &rng)
    where expectCompactAgreement(bytes, models: [.x86_64SysV, .i386Linux, .windowsX64]) {
      valid += 1
    }
    #expect(valid > 100)
  }

  /// Both forms of `bytes` agree; `true` when the input parses.
  @discardableResult
  func expectCompactAgreement(
    _ bytes: [UInt8], models: [DataModel] = DataModel.allBuiltIn, sourceLocation: SourceLocation = #_sourceLocation
  ) -> Bool {
    let text = String(decoding: bytes, as: UTF8.self)
    let (tree, compact) = bytes.withUnsafeBufferPointer { buffer in
      (
        Result { () throws(EncodingError) in try SignatureEncoding(parsingBytes: buffer) },
        Result { () throws(EncodingError) in try CompactSignature(parsingBytes: buffer) }
      )
    }
    switch (tree, compact) {
    case (.failure(let expected), .failure(let error)):
      #expect(error == expected, "\(text)", sourceLocation: sourceLocation)
      return false
    case (.success(let tree), .success(let compact)):
      #expect(compact.tree == tree, "\(text)", sourceLocation: sourceLocation)
      #expect(compact.description == tree.description, "\(text)", sourceLocation: sourceLocation)
      #expect(compact.kind == tree.kind, "\(text)", sourceLocation: sourceLocation)
      #expect(compact.returnType == tree.returnType, "\(text)", sourceLocation: sourceLocation)
      #expect(compact.frameLength == tree.frameLength, "\(text)", sourceLocation: sourceLocation)
      #expect(compact.argumentCount == tree.arguments.count, "\(text)", sourceLocation: sourceLocation)
      for (index, argument) in tree.arguments.enumerated() where index < compact.argumentCount {
        #expect(compact.argumentType(at: index) == argument.type, "\(text)", sourceLocation: sourceLocation)
        #expect(compact.offset(ofArgument: index) == argument.offset, "\(text)", sourceLocation: sourceLocation)
      }
      for model in models {
        let expected = Result { () throws(LayoutError) in try tree.layout(for: model) }
        let layout = Result { () throws(LayoutError) in try compact.layout(for: model) }
        #expect(layout == expected, "\(text) on \(model)", sourceLocation: sourceLocation)
      }
      return true
    case (.success, .failure(let error)):
      Issue.record("\(text): the tree parses, the compact form fails with \(error)", sourceLocation: sourceLocation)
      return false
    case (.failure(let error), .success):
      Issue.record("\(text): the compact form parses, the tree fails with \(error)", sourceLocation: sourceLocation)
      return false
    }
  }
}

extension CompactSignatureTests {
  @Test func convertsFromTheTreeAndCodes() throws {
    let tree = try SignatureEncoding(parsing: "i@?ir*").synthesizingOffsets(for: .x86_64SysV)
    let compact = try CompactSignature(tree)
    #expect(compact.description == "i20@?0i8r*12")
    #expect(compact.tree == tree)
    let handMade = SignatureEncoding(
      returnType: .primitive(.void), arguments: [.init(type: .structure(name: "A=B", fields: []))])
    #expect(throws: EncodingError.self) { try CompactSignature(handMade) }
    let data = try JSONEncoder().encode([compact])
    #expect(String(decoding: data, as: UTF8.self) == #"["i20@?0i8r*12"]"#)
    #expect(try JSONDecoder().decode([CompactSignature].self, from: data) == [compact])
    #expect(throws: (any Error).self) {
      try JSONDecoder().decode([CompactSignature].self, from: Data(#"["{S=i"]"#.utf8))
    }
  }

  /// A compact signature is shared across threads as it is: it is never written after it is made.
  @Test func readsFromManyThreads() async throws {
    let signature = try CompactSignature(parsing: "v40@?0{CGRect={CGPoint=dd}{CGSize=dd}}8")
    let frames = await withTaskGroup(of: Int.self) { group in
      for _ in 0..<8 { group.addTask { (try? signature.layout(for: .x86_64SysV).frameLength) ?? -1 } }
      return await group.reduce(into: [Int]()) { $0.append($1) }
    }
    #expect(frames == Array(repeating: 40, count: 8))
  }
}

extension CompactSignatureTests {
  /// Long inputs read again with room for the depth limit, not for every byte: any limit (none,
  /// small, larger than the input, `Int.max`) gives the tree's answer.
  @Test(arguments: [0, 1, 5, 99, 100, 1_000, Int.max])
  func depthLimitsAgreeWithTheTree(limit: Int) throws {
    let options = ParseOptions(maximumNestingDepth: limit)
    let deep = "v@?" + String(repeating: "^{A=r", count: 60) + "i" + String(repeating: "}", count: 60)
    let wide = "v" + String(repeating: "^i", count: 200)
    // Five levels in each argument: exactly at a limit of 5.
    let atFive = "v" + String(repeating: "^^^^^i", count: 60)
    for text in [deep, wide, atFive, "i20@?0i8r*12"] {
      let tree = Result { () throws(EncodingError) in try SignatureEncoding(parsing: text, options: options) }
      let compact = Result { () throws(EncodingError) in try CompactSignature(parsing: text, options: options) }
      switch (tree, compact) {
      case (.success(let tree), .success(let compact)): #expect(compact.tree == tree, "\(text)")
      case (.failure(let expected), .failure(let error)): #expect(error == expected, "\(text)")
      default: Issue.record("\(limit): \(text) parses with one form only")
      }
    }
  }
}
