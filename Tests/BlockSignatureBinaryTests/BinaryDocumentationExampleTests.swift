import BlockSignature
import BlockSignatureBinary
import Foundation
import TestSupport
import Testing

/// The examples in the Binary library's documentation comments, run as written.
@Suite struct BinaryDocumentationExampleTests {
  /// SymbolDemangling.swift
  @Test func symbolDemangler() {
    #expect(SymbolDemangler.demangle("___ZN2NS3Foo3barEi_block_invoke_2") == "block 2 in NS::Foo::bar(int)")
    #expect(
      SymbolDemangler.demangle("$sIeg_IeyB_TR")?.hasPrefix(
        "reabstraction thunk helper from @escaping @callee_guaranteed () -> () to ") == true)
    #expect(SymbolDemangler.demangle("__main_block_invoke") == nil)
    #expect(SymbolDemangler.demangle("__29-[Foo bar:]_block_invoke") == "block in -[Foo bar:]")
  }

  /// BinaryScanReport.swift (BlockConstructionSite): the stack blocks of the toolchain's
  /// libdispatch, each site's function and invoke named.
  @Test func constructionSites() throws {
    let library = try #require(Toolchain.runtimeLibraryDirectory).appendingPathComponent("libdispatch.so").path
    let report = try BinaryScanner.scan(fileAt: library)[0]
    var named = 0
    for block in report.blocks where block.kind == .stack {
      for site in block.constructionSites {
        if site.function != nil, site.invoke?.symbol != nil { named += 1 }
      }
    }
    #expect(named > 0)
  }
}
