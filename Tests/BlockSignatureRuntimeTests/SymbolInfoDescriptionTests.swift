import BlockSignatureRuntime
import Foundation
import Testing

/// `SymbolInfo` prints as a person reads it: symbol, address, image.
@Suite struct SymbolInfoDescriptionTests {
  /// `_Block_copy`, an exported function of the blocks runtime this process has loaded.
  static func blockCopy() throws -> SymbolInfo {
    let address = try #require(dlsym(dlopen(nil, RTLD_NOW), "_Block_copy"))
    return try #require(SymbolInfo(address: UInt(bitPattern: address)))
  }

  @Test func anExactSymbol() throws {
    let info = try Self.blockCopy()
    let image = try #require(info.imagePath)
    #expect(info.name == "_Block_copy")
    #expect(info.description == "_Block_copy at 0x\(String(info.address, radix: 16)) in \(image)")
  }

  @Test func anAddressInsideASymbol() throws {
    let start = try Self.blockCopy()
    let inside = try #require(SymbolInfo(address: start.address + 4))
    #expect(inside.description == "_Block_copy+0x4 at 0x\(String(start.address + 4, radix: 16)) in \(start.imagePath!)")
  }

  @Test func noSymbolOrNoImage() throws {
    var info = try Self.blockCopy()
    let hex = "0x" + String(info.address, radix: 16)
    info.name = nil
    info.nearestName = nil
    #expect(info.description == "\(hex) in \(info.imagePath!)")
    info.imagePath = nil
    #expect(info.description == hex)
    #expect("\(info)" == info.description)
  }
}
