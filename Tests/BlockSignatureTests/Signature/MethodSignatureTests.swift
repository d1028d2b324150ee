import BlockSignature
import Foundation
import Testing

/// The `NSMethodSignature` role: counts, types, sizes, offsets, from text, parts and live blocks.
@Suite struct MethodSignatureTests {
  @Test func blockSignatureFromText() throws {
    let signature = try MethodSignature(parsing: "i20@?0i8r*12")
    #expect(signature.isBlock)
    #expect(signature.kind == .block)
    #expect(signature.numberOfArguments == 3)
    #expect(signature.argumentType(at: 0) == .block(signature: nil))
    #expect(signature.argumentType(at: 2) == .qualified(.const, .primitive(.cString)))
    #expect(signature.argumentType(at: 3) == nil)
    #expect(signature.arguments.map(\.offset) == [0, 8, 12])
    #expect(signature.arguments.map(\.size) == [8, 4, 8])
    #expect(signature.arguments.map(\.alignment) == [8, 4, 8])
    #expect(signature.methodReturnType == .primitive(.int))
    #expect(signature.methodReturnLength == 4)
    #expect(signature.frameLength == 20)
    #expect(!signature.isOneway)
    #expect(signature.offsetsMatchClang)
  }

  @Test func methodSignatureFromText() throws {
    let signature = try MethodSignature(parsing: "Vv24@0:8@16")
    #expect(!signature.isBlock)
    #expect(signature.kind == .method)
    #expect(signature.isOneway)
    #expect(signature.methodReturnLength == 0)
    #expect(signature.argumentType(at: 1) == .primitive(.selector))
    #expect(signature.frameLength == 24)
  }

  /// `oneway` anywhere among the return type's qualifiers; alignments are the types' own (a
  /// structure's, an array's element's), not their sizes.
  @Test func onewayBehindAnotherQualifierAndAlignments() throws {
    #expect(try MethodSignature(parsing: "nVv16@0:8").isOneway)
    let structure = try MethodSignature(parsing: "v24@?0{S=cq}8")
    #expect(structure.arguments.map(\.size) == [8, 16])
    #expect(structure.arguments.map(\.alignment) == [8, 8])
    let array = try MethodSignature(parsing: "v16@?0[3i]8")
    #expect(array.arguments.map(\.size) == [8, 12])
    #expect(array.arguments.map(\.alignment) == [8, 4])
    #expect(array.arguments.map(\.slotSize) == [8, 8])
  }

  @Test func smallIntegersTakeAnIntSlot() throws {
    let signature = try MethodSignature(parsing: "v24@?0c8s12B16C20")
    #expect(signature.arguments.map(\.size) == [8, 1, 2, 1, 1])
    #expect(signature.arguments.map(\.slotSize) == [8, 4, 4, 4, 4])
    #expect(signature.frameLength == 24)
  }

  @Test func writtenOffsetsAreKeptAndChecked() throws {
    let signature = try MethodSignature(parsing: "i24@?0i8r*12")
    #expect(signature.frameLength == 20)
    #expect(signature.encoding.frameLength?.value == 24)
    #expect(!signature.offsetsMatchClang)
    #expect(signature.arguments.map(\.writtenOffset) == [0, 8, 12])
  }

  @Test func fromParts() throws {
    let types = [TypeEncoding.primitive(.int), .qualified(.const, .primitive(.cString))]
    let block = try MethodSignature(returnType: .primitive(.int), argumentTypes: types, form: .block)
    #expect(block.description == "i20@?0i8r*12")
    let method = try MethodSignature(returnType: .primitive(.int), argumentTypes: types, form: .method)
    #expect(method.description == "i28@0:8i16r*20")
    let function = try MethodSignature(returnType: .primitive(.int), argumentTypes: types, form: .types)
    #expect(function.description == "i12i0r*4")
    let ilp32 = try MethodSignature(
      returnType: .primitive(.void), argumentTypes: [.primitive(.double)], form: .block, model: .i386Linux)
    #expect(ilp32.description == "v12@?0d4")
  }

  @Test func malformedTextKeepsTheOffset() throws {
    let error = try #require(throws: SignatureError.self) { try MethodSignature(parsing: "v16@?0{S=i") }
    #expect(error.kind == .malformedEncoding)
    let encodingError = try #require(error.encodingError)
    #expect(encodingError.kind == .unterminatedStructure)
    #expect(encodingError.offset == 6)  // the unclosed `{`
  }
}
