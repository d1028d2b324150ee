import BlockSignature
import BlockSignatureRuntime
import FixtureSupport
import Foundation
import TestSupport
import Testing

/// Block → method → block conversions of every fixture's live signature, checked against the
/// method encodings clang writes.
@Suite struct FixtureConversionTests {
  /// A fixture's C declaration, `RET (^)(T1, T2)`, split into its return and parameter types.
  static func split(declaration: String) -> (returnType: String, parameters: [String])? {
    guard let marker = declaration.range(of: " (^)("), declaration.hasSuffix(")") else { return nil }
    let returnType = String(declaration[..<marker.lowerBound])
    let list = declaration[marker.upperBound..<declaration.index(before: declaration.endIndex)]
    var parameters: [String] = []
    var depth = 0
    var current = ""
    for character in list {
      switch character {
      case "(", "<", "[": depth += 1
      case ")", ">", "]": depth -= 1
      default: break
      }
      if character == ",", depth == 0 {
        parameters.append(current.trimmingCharacters(in: .whitespaces))
        current = ""
      } else {
        current.append(character)
      }
    }
    let last = current.trimmingCharacters(in: .whitespaces)
    if !(last.isEmpty || (parameters.isEmpty && last == "void")) { parameters.append(last) }
    return (returnType, parameters)
  }

  /// One Objective-C protocol method per fixture, `- (RET)m<index>:(T1)p1 :(T2)p2 …;`, compiled
  /// with clang for the GNUstep runtime: selector → clang's method type string.
  static let clangMethodTypes: Result<[String: String], any Error> = Result {
    var source = """
      #include <stddef.h>
      #include <stdint.h>
      #include "BlockFixtureTypes.h"
      @protocol BSConversionMethods

      """
    for fixture in Fixture.all {
      guard let (returnType, parameters) = split(declaration: fixture.declaration) else { continue }
      source += "- (\(returnType))m\(fixture.index)"
      for (index, parameter) in parameters.enumerated() { source += " :(\(parameter))p\(index + 1)" }
      source += ";\n"
    }
    source +=
      "@end\nvoid *bs_protocol_reference(void) { return (__bridge void *)@protocol(BSConversionMethods); }\n"
    return try ObjCMethodTypes.gnustep(
      source: source, includeDirectories: [Toolchain.packageRoot.appendingPathComponent("Fixtures").path])
  }

  static func selector(of fixture: Fixture) -> String? {
    split(declaration: fixture.declaration).map {
      "m\(fixture.index)" + String(repeating: ":", count: $0.parameters.count)
    }
  }

  @Test(arguments: Fixture.all)
  func blockToMethodMatchesClang(_ fixture: Fixture) throws {
    let methods = try Self.clangMethodTypes.get()
    let selector = try #require(Self.selector(of: fixture), "cannot read declaration \(fixture.declaration)")
    let expected = try #require(
      methods[selector], "clang emitted no method \(selector) for \(fixture.declaration)")
    let info = try fixture.withBlock { try BlockInfo(inspecting: $0) }
    let block = try MethodSignature(block: info)
    #expect(block.isBlock)
    let method = try block.converted(to: .method)
    // The GNUstep runtime writes bitfields in GNU form (`b0I3`); the C fixtures use NeXT form
    // (`b3`). That is the runtime's choice, not the conversion's: compare widths only.
    let clangMethod = try SignatureEncoding(parsing: expected).withNeXTBitfields()
    #expect(method.encoding == clangMethod, "\(fixture.declaration): block \(block), clang \(expected)")
    #expect(method.kind == .method)
    #expect(method.numberOfArguments == block.numberOfArguments + 1)
    // And back: clang's method string converts to the block's own signature.
    let back = try clangMethod.converted(to: .block)
    #expect(back == block.encoding, "\(fixture.declaration): method \(expected)")
    // The function form starts at 0 and converts back to the block unchanged.
    let function = try block.encoding.converted(to: .types)
    if block.numberOfArguments > 1 { #expect(function.arguments.first?.offset?.value == 0) }
    #expect(try function.converted(from: .types, to: .block) == block.encoding)
  }
}

extension SignatureEncoding {
  /// The signature with every GNU-form bitfield `b<offset><type><width>` written in NeXT form.
  func withNeXTBitfields() -> SignatureEncoding {
    var copy = self
    copy.returnType = returnType.withNeXTBitfields()
    for index in copy.arguments.indices {
      copy.arguments[index].type = arguments[index].type.withNeXTBitfields()
    }
    return copy
  }
}

extension TypeEncoding {
  func withNeXTBitfields() -> TypeEncoding {
    switch self {
    case .bitfield(let bitfield): .bitfield(.init(width: bitfield.width))
    case .pointer(let inner): .pointer(inner.withNeXTBitfields())
    case .array(let count, let element): .array(count: count, element: element.withNeXTBitfields())
    case .structure(let name, let fields):
      .structure(name: name, fields: fields?.map { .init(name: $0.name, type: $0.type.withNeXTBitfields()) })
    case .union(let name, let fields):
      .union(name: name, fields: fields?.map { .init(name: $0.name, type: $0.type.withNeXTBitfields()) })
    case .complex(let inner): .complex(inner.withNeXTBitfields())
    case .atomic(let inner): .atomic(inner.withNeXTBitfields())
    case .qualified(let qualifier, let inner): .qualified(qualifier, inner.withNeXTBitfields())
    case .block(let signature): .block(signature: signature?.map { $0.withNeXTBitfields() })
    default: self
    }
  }
}
