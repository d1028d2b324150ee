import BlockSignature
import BlockSignatureBinary
import BlockSignatureRuntime
import FixtureSupport
import Foundation
import TestSupport
import Testing

/// Reads the block at `pointer` both ways — in this process (`BlockInfo(inspecting:)`) and as
/// another process would be read (`BlockInfo(inspecting:inProcess:)` with this process's ID) —
/// and expects the same block or the same error. Names may differ: the process read takes
/// them from the image files (local symbols included), `dladdr` knows exported ones only.
/// Returns the in-process result.
@discardableResult
func expectProcessReadAgrees(
  _ pointer: UnsafeRawPointer, _ context: String = "", sourceLocation: SourceLocation = #_sourceLocation
) -> Result<BlockInfo, BlockInspectionError> {
  let local = Result { () throws(BlockInspectionError) in try BlockInfo(inspecting: pointer) }
  let remote = Result { () throws(BlockInspectionError) in
    try BlockInfo(inspecting: UInt(bitPattern: pointer), inProcess: ProcessInfo.processInfo.processIdentifier)
  }
  switch (local, remote) {
  case (.success(let here), .success(let there)):
    #expect(there.processID == ProcessInfo.processInfo.processIdentifier, sourceLocation: sourceLocation)
    #expect(here.processID == nil, sourceLocation: sourceLocation)
    #expect(there.address == here.address, "\(context)", sourceLocation: sourceLocation)
    #expect(there.flags == here.flags, "\(context)", sourceLocation: sourceLocation)
    #expect(there.isa == here.isa, "\(context)", sourceLocation: sourceLocation)
    #expect(there.isaSymbol == here.isaSymbol, "\(context)", sourceLocation: sourceLocation)
    #expect(
      there.isaSymbolInfo?.imagePath == here.isaSymbolInfo?.imagePath, "\(context)", sourceLocation: sourceLocation)
    #expect(there.descriptorAddress == here.descriptorAddress, "\(context)", sourceLocation: sourceLocation)
    #expect(there.descriptorReserved == here.descriptorReserved, "\(context)", sourceLocation: sourceLocation)
    #expect(there.size == here.size, "\(context)", sourceLocation: sourceLocation)
    #expect(there.copyHelperAddress == here.copyHelperAddress, "\(context)", sourceLocation: sourceLocation)
    #expect(there.disposeHelperAddress == here.disposeHelperAddress, "\(context)", sourceLocation: sourceLocation)
    #expect(there.signatureBytes == here.signatureBytes, "\(context)", sourceLocation: sourceLocation)
    #expect(there.layoutWord == here.layoutWord, "\(context)", sourceLocation: sourceLocation)
    #expect(there.extendedLayout == here.extendedLayout, "\(context)", sourceLocation: sourceLocation)
    #expect(there.invokeAddress == here.invokeAddress, "\(context)", sourceLocation: sourceLocation)
    #expect(there.invoke?.imagePath == here.invoke?.imagePath, "\(context)", sourceLocation: sourceLocation)
    #expect(there.referenceCount == here.referenceCount, "\(context)", sourceLocation: sourceLocation)
    #expect(there.memoryWasChecked, sourceLocation: sourceLocation)
  case (.failure(let here), .failure(let there)):
    #expect(there == here, sourceLocation: sourceLocation)
  default:
    Issue.record("in this process: \(local); read as another process: \(remote)", sourceLocation: sourceLocation)
  }
  return local
}

/// `BlockInfo(inspecting:inProcess:)`: blocks read from another process's memory.
@Suite(.serialized) struct ProcessInspectionTests {
  /// Every fixture block, read through the process path from this very process, is the block
  /// the in-process path reads.
  @Test func fixturesReadTheSameThroughTheProcessPath() throws {
    for fixture in Fixture.all {
      try fixture.withBlock { block in
        let result = expectProcessReadAgrees(block, fixture.name)
        #expect((try? result.get()) != nil, "\(fixture.name)")
      }
    }
  }

  /// Each fixture that is not a global block (heap, stack, noescape), read as another process
  /// would be: the static reading of its image's code (construction sites) must name the
  /// invoke its live literal holds, at a site in the fixture library; a global block has none.
  @Test func constructionSitesNameTheLiveInvoke() throws {
    var checked = 0
    for fixture in Fixture.all {
      try fixture.withBlock { block in
        let info = try BlockInfo(
          inspecting: UInt(bitPattern: block), inProcess: ProcessInfo.processInfo.processIdentifier)
        guard info.kind != .global else {
          #expect(info.constructionSites == nil, "\(fixture.name)")
          return
        }
        let sites = try #require(info.constructionSites, "\(fixture.name)")
        #expect(sites.contains { $0.invoke?.address == UInt64(info.invokeAddress) }, "\(fixture.name): \(sites)")
        #expect(sites.allSatisfy { $0.function != nil }, "\(fixture.name)")
        checked += 1
      }
    }
    #expect(checked >= 6, "\(checked) fixtures that are not global")
  }

  /// The local function names the dynamic linker does not know come from the image's own
  /// symbol table.
  @Test func invokeFunctionsAreNamedFromTheSymbolTable() throws {
    let fixture = try #require(Fixture.all.first { $0.name == "int_long" })
    try fixture.withBlock { block in
      let info = try BlockInfo(
        inspecting: UInt(bitPattern: block), inProcess: ProcessInfo.processInfo.processIdentifier)
      #expect(info.invoke?.name == "__bf_int_long_block_invoke")
      #expect(info.isaSymbol == "_NSConcreteGlobalBlock")
      #expect(info.isaIsBlockClass)
    }
  }

  /// A process that does not exist (one that has exited and been reaped) cannot be read.
  @Test func goneProcessIsNotReadable() throws {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/bin/true")
    try process.run()
    process.waitUntilExit()
    let pid = process.processIdentifier
    do {
      _ = try BlockInfo(inspecting: 0x1000, inProcess: pid)
      Issue.record("read a block from process \(pid), which has exited")
    } catch {
      #expect(error.kind == .processNotReadable)
      #expect(error.description == "block at 0x1000: cannot read process \(pid): No such process")
    }
  }

  /// Unmapped and misaligned addresses in another process are reported as for this one.
  @Test func unreadableAndMisalignedAddresses() throws {
    let pid = ProcessInfo.processInfo.processIdentifier
    #expect(throws: BlockInspectionError(kind: .nullPointer, address: 0, message: "null block pointer")) {
      try BlockInfo(inspecting: 0, inProcess: pid)
    }
    do {
      _ = try BlockInfo(inspecting: 0x10, inProcess: pid)
      Issue.record("read a block at 0x10")
    } catch {
      #expect(error.kind == .unreadableMemory)
      #expect(error.description == "block at 0x10: the 32-byte block header is not readable memory")
    }
    do {
      _ = try BlockInfo(inspecting: 0x1001, inProcess: pid)
      Issue.record("read a block at 0x1001")
    } catch {
      #expect(error.kind == .misaligned)
    }
  }

  /// Searching a process: one that has exited cannot be read; one without a blocks runtime
  /// has no block classes to look for, so nothing is found.
  @Test func searchingAProcess() throws {
    let gone = Process()
    gone.executableURL = URL(fileURLWithPath: "/bin/true")
    try gone.run()
    gone.waitUntilExit()
    do {
      _ = try BlockInfo.blocks(inProcess: gone.processIdentifier)
      Issue.record("searched process \(gone.processIdentifier), which has exited")
    } catch {
      #expect(error.kind == .processNotReadable)
      #expect(error.message == "cannot read process \(gone.processIdentifier): No such process")
    }
    let sleeper = Process()
    sleeper.executableURL = URL(fileURLWithPath: "/bin/sleep")
    sleeper.arguments = ["30"]
    try sleeper.run()
    defer {
      kill(sleeper.processIdentifier, SIGKILL)
      sleeper.waitUntilExit()
    }
    #expect(BlocksRuntime.loaded(inProcess: sleeper.processIdentifier).isEmpty)
    #expect(try BlockInfo.blocks(inProcess: sleeper.processIdentifier).isEmpty)
  }
}
