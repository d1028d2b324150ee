import BlockFixtures
import BlockSignature
import BlockSignatureBinary
import BlockSignatureRuntime
import CBlockABI
import FixtureSupport
import Foundation
import Synchronization
import TestSupport
import Testing

@Suite struct RuntimeInspectionTests {
  /// A library path that is not a regular file (a directory, a FIFO) is refused before
  /// `dlopen`, which would wait for a FIFO's writer forever. The FIFO is tried on a thread of
  /// its own: if it has not answered 60 seconds after it started (its own time, not the time
  /// the test waited for a turn among the others), a writer is opened to let it go on and the
  /// test fails instead of hanging the suite.
  @Test func libraryThatIsNotARegularFileIsRefused() throws {
    let folder = try Toolchain.temporaryDirectory("blocksig-fifo")
    defer { try? FileManager.default.removeItem(at: folder) }
    let fifo = folder.appendingPathComponent("lib.so")
    #expect(mkfifo(fifo.path, 0o600) == 0)
    for path in [fifo.path, folder.path] {
      let answered = DispatchSemaphore(value: 0)
      let outcome = Mutex<Result<LoadedLibrary, LoadedLibraryError>?>(nil)
      Thread {
        let result = Result { () throws(LoadedLibraryError) in try LoadedLibrary(loading: path) }
        outcome.withLock { $0 = result }
        answered.signal()
      }.start()
      if answered.wait(timeout: .now() + 60) == .timedOut {
        Issue.record("LoadedLibrary(loading: \(path)) has not returned after 60 s: it waits for a writer")
        let writer = open(path, O_WRONLY | O_NONBLOCK)
        if writer >= 0 { close(writer) }
        answered.wait()
      }
      guard case .failure(let error) = try #require(outcome.withLock { $0 }) else {
        Issue.record("\(path) was loaded")
        continue
      }
      #expect(error.kind == .cannotLoad)
      #expect(error.message == "\(path): not a regular file")
    }
    let missing = try #require(throws: LoadedLibraryError.self) {
      try LoadedLibrary(loading: folder.appendingPathComponent("none.so").path)
    }
    #expect(missing.kind == .noSuchFile)
  }

  @Test func thereAreEnoughFixtures() {
    #expect(Fixture.all.count >= 60)
    #expect(Set(Fixture.all.map(\.name)).count == Fixture.all.count)
    #expect(Set(Fixture.all.map(\.kind)) == ["global", "heap", "stack", "noescape"])
  }

  @Test(arguments: Fixture.all)
  func fixtureReadsLikeTheRuntimeAndTheABIMirror(_ fixture: Fixture) throws {
    let runtime = try #require(BlocksRuntime.current)
    try fixture.withBlock { block in
      let info = try BlockInfo(inspecting: block)
      #expect(info.kind.rawValue == fixture.kind)
      #expect(info.flags.contains(.hasSignature))
      #expect(info.isaIsBlockClass, "isa symbol \(info.isaSymbol ?? "nil")")
      // Our reading equals the C mirror's accessor and the runtime's own answer.
      let literal = block.assumingMemoryBound(to: CBA_Block_layout.self)
      let viaMirror = cba_block_signature(literal).map { String(cString: $0) }
      #expect(info.signature == viaMirror)
      #expect(info.signature == runtime.signature(ofBlockAt: block))
      #expect(info.size == Int(cba_block_descriptor_size(literal)))
      #expect((info.copyHelperAddress != nil) == info.flags.contains(.hasCopyDispose))
      #expect((info.disposeHelperAddress != nil) == info.flags.contains(.hasCopyDispose))
      #expect(info.invokeAddress != 0)
      #expect(info.invoke?.imagePath != nil)
      if info.kind == .heap {
        #expect(info.referenceCount == 1)
      } else {
        #expect(info.referenceCount == nil)
      }
    }
  }

  @Test(arguments: Fixture.all.filter { $0.kind == "global" })
  func globalFixtureMatchesWhatClangEmitted(_ fixture: Fixture) throws {
    let ir = try FixtureIR.ir.get()
    let found = FixtureIR.literal(of: fixture, in: ir)
    let literal = try #require(found, "no literal for \(fixture.name) in clang's IR")
    let descriptor = try #require(ir.descriptors[literal.descriptor], "no descriptor \(literal.descriptor)")
    try fixture.withBlock { block in
      let info = try BlockInfo(inspecting: block)
      #expect(info.flags.rawValue == literal.flags)
      #expect(info.signature == descriptor.signature)
      #expect(info.size == descriptor.size)
      #expect(info.flags.contains(.hasCopyDispose) == descriptor.hasHelpers)
    }
  }

  @Test func structReturnFlagFollowsTheTarget() throws {
    let bigInfo = try BlockInfo(inspecting: Fixture.make("stret_big"))
    let twoInfo = try BlockInfo(inspecting: Fixture.make("no_stret_two_doubles"))
    #if arch(x86_64)
      #expect(bigInfo.usesStructReturn)
    #endif
    #expect(!twoInfo.usesStructReturn)
  }

  @Test func capturingBlocksHaveHelpers() throws {
    for name in ["heap_captures_block", "heap_captures_byref"] {
      let fixture = try #require(Fixture.all.first { $0.name == name })
      try fixture.withBlock { block in
        let info = try BlockInfo(inspecting: block)
        #expect(info.flags.contains(.hasCopyDispose), "\(name)")
        #expect(info.copyHelper?.imagePath != nil, "\(name)")
      }
    }
    let plain = try #require(Fixture.all.first { $0.name == "heap_captures_int" })
    let plainInfo = try plain.withBlock { try BlockInfo(inspecting: $0) }
    #expect(!plainInfo.flags.contains(.hasCopyDispose))
  }

  @Test func referenceCountFollowsCopiesAndReleases() throws {
    let block = try Fixture.make("heap_captures_int")
    defer { _Block_release(block) }
    #expect(try BlockInfo(inspecting: block).referenceCount == 1)
    let again = try #require(_Block_copy(block))
    #expect(again == block)
    #expect(try BlockInfo(inspecting: block).referenceCount == 2)
    _Block_release(again)
    #expect(try BlockInfo(inspecting: block).referenceCount == 1)
  }

  @Test(arguments: Fixture.all.filter { $0.kind == "stack" || $0.kind == "noescape" })
  func heapCopiesKeepTheSignature(_ fixture: Fixture) throws {
    try fixture.withBlock { block in
      let original = try BlockInfo(inspecting: block)
      let copy = try #require(_Block_copy(block))
      defer { _Block_release(copy) }
      let copied = try BlockInfo(inspecting: copy)
      #expect(copied.signature == original.signature)
      #expect(copied.descriptorAddress == original.descriptorAddress)
      if original.kind == .noescape {
        // clang marks noescape literals global as well, so copying returns the block itself.
        #expect(copy == block)
        #expect(copied.kind == .noescape)
      } else {
        #expect(copied.kind == .heap)
        #expect(copied.referenceCount == 1)
      }
    }
  }

  @Test func swiftClosuresAreBlocks() throws {
    let closure: @convention(block) (Int32, Int) -> Int32 = { a, b in a &+ Int32(truncatingIfNeeded: b) }
    let pointer = unsafeBitCast(closure, to: UnsafeRawPointer.self)
    let info = try withExtendedLifetime(closure) { try BlockInfo(inspecting: pointer) }
    let cSignature = try BlockInfo(inspecting: Fixture.make("int_long")).signature
    // Swift writes the same signature as clang does for `int (^)(int, long)`.
    #expect(info.signature == cSignature)
    #expect(info.kind == .heap)
    #expect(info.referenceCount == 1)
    #expect(info.signature == BlocksRuntime.current?.signature(ofBlockAt: pointer))
    let capturing: @convention(block) () -> Int = { [info] in info.size }
    let capturingInfo = try withExtendedLifetime(capturing) {
      try BlockInfo(inspecting: unsafeBitCast(capturing, to: UnsafeRawPointer.self))
    }
    #expect(capturingInfo.flags.contains(.hasCopyDispose))
  }

  /// Each convention reads its own count: compiler-rt's from bits 0–15 as is, libclosure's
  /// from bits 1–15 halved; flags outside the mask do not count.
  @Test func referenceCountConventionsReadTheirOwnUnits() {
    typealias Convention = BlocksRuntime.ReferenceCountConvention
    #expect(Convention.unitsOfOne.referenceCount(flags: BlockFlags(rawValue: 3)) == 3)
    #expect(Convention.unitsOfTwo.referenceCount(flags: BlockFlags(rawValue: 6)) == 3)
    #expect(Convention.unitsOfTwo.referenceCount(flags: BlockFlags(rawValue: 7)) == 3)
    #expect(Convention.unitsOfOne.referenceCount(flags: [.needsFree, BlockFlags(rawValue: 3)]) == 3)
    #expect(Convention.unitsOfTwo.referenceCount(flags: [.needsFree, BlockFlags(rawValue: 6)]) == 3)
  }

  /// Each flag bit of the C mirror (libclosure's names, `CBA_` prefixed) names itself and only
  /// itself; bits 16–20 are the undefined ones.
  @Test func flagNamesFollowTheABIBits() {
    let bits: [(Int32, String)] = [
      (Int32(CBA_BLOCK_DEALLOCATING), "BLOCK_DEALLOCATING"),
      (Int32(CBA_BLOCK_INLINE_LAYOUT_STRING), "BLOCK_INLINE_LAYOUT_STRING"),
      (Int32(CBA_BLOCK_SMALL_DESCRIPTOR), "BLOCK_SMALL_DESCRIPTOR"),
      (Int32(CBA_BLOCK_IS_NOESCAPE), "BLOCK_IS_NOESCAPE"), (Int32(CBA_BLOCK_NEEDS_FREE), "BLOCK_NEEDS_FREE"),
      (Int32(CBA_BLOCK_HAS_COPY_DISPOSE), "BLOCK_HAS_COPY_DISPOSE"), (Int32(CBA_BLOCK_HAS_CTOR), "BLOCK_HAS_CTOR"),
      (Int32(CBA_BLOCK_IS_GC), "BLOCK_IS_GC"), (Int32(CBA_BLOCK_IS_GLOBAL), "BLOCK_IS_GLOBAL"),
      (Int32(CBA_BLOCK_USE_STRET), "BLOCK_USE_STRET"), (Int32(CBA_BLOCK_HAS_SIGNATURE), "BLOCK_HAS_SIGNATURE"),
      (Int32(bitPattern: UInt32(CBA_BLOCK_HAS_EXTENDED_LAYOUT)), "BLOCK_HAS_EXTENDED_LAYOUT"),
    ]
    for (bit, name) in bits {
      #expect(BlockFlags(rawValue: bit).names == [name], "\(name)")
      #expect(BlockFlags(rawValue: bit).undefinedBits == 0, "\(name)")
    }
    #expect(BlockFlags(rawValue: 0x5000_0000).names == ["BLOCK_IS_GLOBAL", "BLOCK_HAS_SIGNATURE"])
    for bit in 16...20 {
      #expect(BlockFlags(rawValue: 1 << bit).undefinedBits == 1 << bit)
      #expect(BlockFlags(rawValue: 1 << bit).names.isEmpty)
    }
  }

  @Test func theProcessLoadsExactlyOneRuntimeAndItIsTheToolchains() throws {
    let current = try #require(BlocksRuntime.current)
    #expect(current.exportsSignatureQueries)
    #expect(current.referenceCountConvention == .unitsOfTwo)
    #expect(URL(fileURLWithPath: current.path).lastPathComponent == "libBlocksRuntime.so")
    let loaded = BlocksRuntime.loaded
    #expect(loaded.first?.path == current.path)
    // GNUstep Base carries a small blocks runtime of its own (_Block_copy, _NSConcreteStackBlock),
    // and the Objective-C tests load it into this process; loaded after the toolchain's, it
    // answers no call. Any other second runtime fails here.
    let others = loaded.dropFirst().map { URL(fileURLWithPath: $0.path).lastPathComponent }
    #expect(others.allSatisfy { $0.hasPrefix("libgnustep-base.so") }, "\(loaded.map(\.path))")
  }
}

@Suite struct InspectionErrorTests {
  func inspectionError(_ pointer: UnsafeRawPointer?) -> BlockInspectionError? {
    do {
      _ = try BlockInfo(inspecting: pointer)
      return nil
    } catch {
      return error
    }
  }

  @Test func nullBlock() {
    let error = inspectionError(nil)
    #expect(error?.kind == .nullPointer)
    #expect(error?.address == 0)
  }

  @Test func misalignedBlock() throws {
    let block = try Fixture.make("int_int")
    let error = inspectionError(block + 1)
    #expect(error?.kind == .misaligned)
    #expect(error?.address == UInt(bitPattern: block) + 1)
  }

  @Test func unmappedBlock() throws {
    let page = Int(sysconf(Int32(_SC_PAGESIZE)))
    let mapping = try #require(mmap(nil, page, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0))
    defer { munmap(mapping, page) }
    let error = inspectionError(UnsafeRawPointer(mapping))
    #expect(error?.kind == .unreadableMemory)
    #expect(error?.address == UInt(bitPattern: mapping))
  }

  @Test func handBuiltBlocks() throws {
    // Descriptor NULL; signature flag with a NULL pointer; no signature flag; absurd size;
    // a descriptor in unmapped memory; a signature with no terminator.
    var words = [UInt](repeating: 0, count: 16)
    try words.withUnsafeMutableBytes { raw in
      let base = try #require(raw.baseAddress)
      let block = base.assumingMemoryBound(to: CBA_Block_layout.self)
      let descriptor = base + 32
      block.pointee.flags = Int32(CBA_BLOCK_IS_GLOBAL)
      #expect(inspectionError(base)?.kind == .nullDescriptor)

      block.pointee.descriptor = descriptor.assumingMemoryBound(to: CBA_Block_descriptor_1.self)
      descriptor.storeBytes(of: 32, toByteOffset: 8, as: UInt.self)
      let plain = try BlockInfo(inspecting: base)
      #expect(plain.signature == nil)
      #expect(plain.kind == .global)

      block.pointee.flags = Int32(CBA_BLOCK_IS_GLOBAL | CBA_BLOCK_HAS_SIGNATURE)
      let nullSignature = try BlockInfo(inspecting: base)
      #expect(nullSignature.signature == nil)

      descriptor.storeBytes(of: 3, toByteOffset: 8, as: UInt.self)
      #expect(inspectionError(base)?.kind == .implausibleSize)
      descriptor.storeBytes(of: 32, toByteOffset: 8, as: UInt.self)

      let unterminated = UnsafeMutableRawPointer.allocate(byteCount: BlockInfo.signatureLimit + 8, alignment: 8)
      defer { unterminated.deallocate() }
      unterminated.initializeMemory(as: UInt8.self, repeating: UInt8(ascii: "v"), count: BlockInfo.signatureLimit + 8)
      descriptor.storeBytes(of: unterminated, toByteOffset: 16, as: UnsafeMutableRawPointer.self)
      let error = inspectionError(base)
      #expect(error?.kind == .unterminatedSignature)
      #expect(error?.address == UInt(bitPattern: unterminated))
    }
  }

  @Test func handBuiltFixturesFromC() throws {
    let nullSignature = try BlockInfo(inspecting: bf_block_with_null_signature())
    #expect(nullSignature.flags.contains(.hasSignature))
    #expect(nullSignature.signature == nil)
    let old = try BlockInfo(inspecting: bf_block_without_signature())
    #expect(!old.flags.contains(.hasSignature))
    #expect(old.signature == nil)
    #expect(old.kind == .global)
  }
}

/// clang emits small (self-relative) descriptors only for Apple targets, so these are built
/// by hand, following the struct that CBlockABI mirrors.
@Suite struct SmallDescriptorTests {
  /// A block at offset 0, a small descriptor at 64, a signature at 128, helpers at 160/161.
  func withSmallBlock<R>(
    flags: Int32, layout: Int32? = nil, _ body: (UnsafeRawPointer, UnsafeMutableRawPointer) throws -> R
  ) rethrows -> R {
    let base = UnsafeMutableRawPointer.allocate(byteCount: 256, alignment: 16)
    defer { base.deallocate() }
    base.initializeMemory(as: UInt8.self, repeating: 0, count: 256)
    let block = base.assumingMemoryBound(to: CBA_Block_layout.self)
    block.pointee.flags = flags | Int32(CBA_BLOCK_SMALL_DESCRIPTOR)
    let descriptor = base + 64
    block.pointee.descriptor = descriptor.assumingMemoryBound(to: CBA_Block_descriptor_1.self)
    descriptor.storeBytes(of: 48, as: UInt32.self)  // size: 31 bits
    let signature = "v8@?0"
    for (index, byte) in signature.utf8.enumerated() { (base + 128 + index).storeBytes(of: byte, as: UInt8.self) }
    func relative(_ field: Int, to target: Int) -> Int32 { Int32(target - (64 + field)) }
    descriptor.storeBytes(of: relative(4, to: 128), toByteOffset: 4, as: Int32.self)
    descriptor.storeBytes(of: layout ?? 0, toByteOffset: 8, as: Int32.self)
    descriptor.storeBytes(of: relative(12, to: 160), toByteOffset: 12, as: Int32.self)
    descriptor.storeBytes(of: relative(16, to: 161), toByteOffset: 16, as: Int32.self)
    return try body(UnsafeRawPointer(base), base)
  }

  @Test func signatureSizeAndHelpersAreResolvedRelatively() throws {
    let flags = Int32(CBA_BLOCK_HAS_SIGNATURE | CBA_BLOCK_HAS_COPY_DISPOSE | CBA_BLOCK_NEEDS_FREE)
    try withSmallBlock(flags: flags) { block, base in
      let info = try expectProcessReadAgrees(block).get()
      #expect(info.hasSmallDescriptor)
      #expect(info.size == 48)
      #expect(info.signature == "v8@?0")
      #expect(info.copyHelperAddress == UInt(bitPattern: base + 160))
      #expect(info.disposeHelperAddress == UInt(bitPattern: base + 161))
      #expect(info.descriptorReserved == 0)
    }
  }

  @Test func noSignatureFlagMeansNoSignature() throws {
    try withSmallBlock(flags: Int32(CBA_BLOCK_IS_GLOBAL)) { block, _ in
      let info = try expectProcessReadAgrees(block).get()
      #expect(info.signature == nil)
      #expect(info.copyHelperAddress == nil)
    }
  }

  @Test func inlineLayoutStringIsAValueNotAPointer() throws {
    let flags = Int32(
      bitPattern: UInt32(CBA_BLOCK_HAS_SIGNATURE | CBA_BLOCK_INLINE_LAYOUT_STRING | CBA_BLOCK_IS_GLOBAL) | 0x8000_0000)
    try withSmallBlock(flags: flags, layout: 0x102) { block, _ in
      let info = try expectProcessReadAgrees(block).get()
      #expect(info.extendedLayout == ExtendedLayout(inlineValue: 0x102))
      #expect(info.extendedLayout?.strongCount == 1)
      #expect(info.extendedLayout?.weakCount == 2)
    }
  }
}
