// The C fixture blocks of Fixtures/BlockFixtures.c, for the tests of the libraries that read
// or call live blocks.

import BlockFixtures
import Foundation
import TestSupport
import Testing

/// One fixture with Swift-friendly fields.
package struct Fixture: CustomTestStringConvertible, Sendable {
  package let index: Int
  package var raw: BFFixture { Fixture.table[index] }
  package var name: String { String(cString: raw.name) }
  package var kind: String { String(cString: raw.kind) }
  package var declaration: String { String(cString: raw.declaration) }
  package var testDescription: String { name }

  nonisolated(unsafe) package static let table: UnsafeBufferPointer<BFFixture> = {
    var count = 0
    let base = bf_fixtures(&count)
    return UnsafeBufferPointer(start: base, count: count)
  }()

  package static let all: [Fixture] = (0..<table.count).map(Fixture.init(index:))

  package var parameterSizes: [Int] {
    withUnsafeBytes(of: raw.parameterSizes) { Array($0.bindMemory(to: Int.self).prefix(Int(raw.parameterCount))) }
  }
  package var parameterAlignments: [Int] {
    withUnsafeBytes(of: raw.parameterAlignments) { Array($0.bindMemory(to: Int.self).prefix(Int(raw.parameterCount))) }
  }

  /// Calls `body` with the live block: a fresh one from `make` (released afterwards) or the
  /// one handed to the visitor.
  package func withBlock<R>(_ body: (UnsafeRawPointer) throws -> R) throws -> R {
    if let make = raw.make {
      let block = try #require(make())
      defer { if kind == "heap" { _Block_release(block) } }
      return try body(block)
    }
    let visit = try #require(raw.visit)
    var result: Result<R, any Error>?
    withoutActuallyEscaping({ (block: UnsafeRawPointer) in result = Result { try body(block) } }) { escapable in
      let box = VisitBox(escapable)
      visit(
        { block, context in
          Unmanaged<VisitBox>.fromOpaque(context!).takeUnretainedValue().body(block)
        }, Unmanaged.passUnretained(box).toOpaque())
    }
    return try #require(result).get()
  }
}

/// Carries a visitor closure through the C callback's context pointer.
final class VisitBox {
  let body: (UnsafeRawPointer) -> Void
  init(_ body: @escaping (UnsafeRawPointer) -> Void) { self.body = body }
}

package func _Block_copy(_ block: UnsafeRawPointer) -> UnsafeRawPointer? { bf_copy(block) }
package func _Block_release(_ block: UnsafeRawPointer) { bf_release(block) }

extension Fixture {
  /// A fresh block of a global or heap fixture (release heap ones with `_Block_release`).
  package static func make(_ name: String) throws -> UnsafeRawPointer {
    let fixture = try #require(bf_fixture_named(name))
    let make = try #require(fixture.pointee.make)
    return try #require(make())
  }
}

/// What clang emitted for Fixtures/BlockFixtures.c, compiled again at test time with the
/// same flags as the package.
package enum FixtureIR {
  package static let ir: Result<ClangIR, any Error> = Result {
    let source = Toolchain.packageRoot.appendingPathComponent("Fixtures/BlockFixtures.c").path
    let include = Toolchain.packageRoot.appendingPathComponent("Fixtures/include").path
    let output = try Toolchain.runClang(["-fblocks", "-I", include, "-S", "-emit-llvm", "-o", "-", source])
    return ClangIR(output.stdout)
  }

  /// The literal clang emitted for a global fixture: the one in `bf_<name>()`, or the one a
  /// file-scope block variable holds.
  package static func literal(of fixture: Fixture, in ir: ClangIR) -> ClangIR.Literal? {
    switch fixture.name {
    case "nested_outer": ir.literal(heldBy: "bf_outer")
    case "global_block_variable": ir.literal(heldBy: "bf_global_block_variable")
    default: ir.literal(invoking: "__bf_\(fixture.name)_block_invoke")
    }
  }
}
