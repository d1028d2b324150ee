import BlockSignature
import BlockSignatureBinary
import BlockSignatureRuntime
import CBlockABI
import Foundation
import Testing

/// Live blocks whose pointers lead into unreadable memory. Complements
/// `InspectionErrorTests` (NULL block, misaligned, unmapped block, NULL descriptor, NULL
/// signature, absurdly small size, unterminated signature).
///
/// What cannot be detected: a pointer into readable memory that is not a block. Its words are
/// read as a block and give a plausible-looking ``BlockInfo`` (see
/// `readableNonBlockIsNotDetectedButItsIsaSaysSo`); only the `isa` check hints at it.
@Suite struct LiveBlockHardeningTests {
  /// Two pages: the first readable and writable, the second `PROT_NONE`.
  final class GuardedPages {
    let page = Int(sysconf(Int32(_SC_PAGESIZE)))
    let base: UnsafeMutableRawPointer
    var readable: UnsafeMutableRawPointer { base }
    var guardPage: UnsafeMutableRawPointer { base + page }

    init() throws {
      let mapping = try #require(mmap(nil, 2 * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0))
      try #require(mapping != MAP_FAILED)
      base = mapping
      try #require(mprotect(base + page, page, PROT_NONE) == 0)
    }

    deinit { munmap(base, 2 * page) }
  }

  /// The error of reading `pointer`, which reading it as another process's memory must give too.
  func inspectionError(_ pointer: UnsafeRawPointer) -> BlockInspectionError? {
    if case .failure(let error) = expectProcessReadAgrees(pointer) { return error }
    return nil
  }

  /// A global block at `block` (32 bytes) with `flags` and `descriptor`.
  func writeBlock(at block: UnsafeMutableRawPointer, flags: UInt32, descriptor: UnsafeRawPointer) {
    block.initializeMemory(as: UInt8.self, repeating: 0, count: 32)
    block.storeBytes(of: flags, toByteOffset: 8, as: UInt32.self)
    block.storeBytes(of: descriptor, toByteOffset: 24, as: UnsafeRawPointer.self)
  }

  @Test func descriptorInProtNoneMemory() throws {
    let pages = try GuardedPages()
    writeBlock(at: pages.readable, flags: UInt32(CBA_BLOCK_IS_GLOBAL), descriptor: pages.guardPage)
    let error = try #require(inspectionError(pages.readable))
    #expect(error.kind == .unreadableMemory)
    #expect(error.address == UInt(bitPattern: pages.guardPage))
    // The block's address first, the descriptor's in the reason; no empty flag list.
    let block = String(UInt(bitPattern: pages.readable), radix: 16)
    let descriptor = String(UInt(bitPattern: pages.guardPage), radix: 16)
    #expect(
      error.description
        == "block at 0x\(block): descriptor at 0x\(descriptor) (16 bytes for flags 0x10000000 [BLOCK_IS_GLOBAL]) "
        + "is not readable memory")
  }

  @Test func descriptorRunningIntoProtNoneMemory() throws {
    // 16 readable bytes hold descriptor part 1; the flags announce part 3 (signature), which
    // would lie in the guard page.
    let pages = try GuardedPages()
    let descriptor = pages.guardPage - 16
    descriptor.storeBytes(of: 0, as: UInt.self)
    descriptor.storeBytes(of: 32, toByteOffset: 8, as: UInt.self)
    let flags = UInt32(CBA_BLOCK_IS_GLOBAL | CBA_BLOCK_HAS_SIGNATURE)
    writeBlock(at: pages.readable, flags: flags, descriptor: descriptor)
    let error = try #require(inspectionError(pages.readable))
    #expect(error.kind == .unreadableMemory)
    #expect(error.address == UInt(bitPattern: descriptor))
    // Without the signature flag the same 16 bytes are a whole descriptor.
    writeBlock(at: pages.readable, flags: UInt32(CBA_BLOCK_IS_GLOBAL), descriptor: descriptor)
    #expect(try BlockInfo(inspecting: pages.readable).size == 32)
  }

  @Test func misalignedDescriptor() throws {
    let pages = try GuardedPages()
    writeBlock(at: pages.readable, flags: UInt32(CBA_BLOCK_IS_GLOBAL), descriptor: pages.readable + 65)
    let error = try #require(inspectionError(pages.readable))
    #expect(error.kind == .unreadableMemory)
    #expect(error.address == UInt(bitPattern: pages.readable + 65))
  }

  /// A block whose descriptor (at +64) has a signature pointer and a layout word.
  func writeSignedBlock(
    _ pages: GuardedPages, signature: UnsafeRawPointer?, layout: UInt = 0, extraFlags: UInt32 = 0
  ) {
    let descriptor = pages.readable + 64
    writeBlock(
      at: pages.readable, flags: UInt32(CBA_BLOCK_IS_GLOBAL | CBA_BLOCK_HAS_SIGNATURE) | extraFlags,
      descriptor: descriptor)
    descriptor.storeBytes(of: 0, as: UInt.self)
    descriptor.storeBytes(of: 32, toByteOffset: 8, as: UInt.self)
    descriptor.storeBytes(of: UInt(bitPattern: signature), toByteOffset: 16, as: UInt.self)
    descriptor.storeBytes(of: layout, toByteOffset: 24, as: UInt.self)
  }

  @Test func signaturePointerIntoProtNoneMemory() throws {
    let pages = try GuardedPages()
    writeSignedBlock(pages, signature: pages.guardPage + 8)
    let error = try #require(inspectionError(pages.readable))
    #expect(error.kind == .unreadableMemory)
    #expect(error.address == UInt(bitPattern: pages.guardPage + 8))
  }

  @Test func signaturePointerUnmapped() throws {
    // A page mapped and unmapped again: nothing lives there now. Tests run in parallel, and
    // another thread's mapping may land in the hole while the block is read; such a round
    // (the page mapped before or after the read) is tried again.
    let pages = try GuardedPages()
    let page = Int(sysconf(Int32(_SC_PAGESIZE)))
    for _ in 0..<20 {
      let hole = try #require(mmap(nil, page, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0))
      munmap(hole, page)
      writeSignedBlock(pages, signature: hole)
      guard isUnmapped(hole, page) else { continue }
      let error = inspectionError(pages.readable)
      guard isUnmapped(hole, page) else { continue }
      let found = try #require(error)
      #expect(found.kind == .unreadableMemory)
      #expect(found.address == UInt(bitPattern: hole))
      return
    }
    Issue.record("every unmapped page was mapped again by another thread while it was read")
  }

  /// Whether no mapping covers `page` bytes at `address` (`msync` says `ENOMEM` then).
  func isUnmapped(_ address: UnsafeMutableRawPointer, _ page: Int) -> Bool {
    msync(address, page, MS_ASYNC) == -1 && errno == ENOMEM
  }

  @Test func signatureRunningIntoProtNoneMemory() throws {
    let pages = try GuardedPages()
    // "v8@?0" with no NUL before the guard page.
    let start = pages.guardPage - 5
    for (index, byte) in "v8@?0".utf8.enumerated() { (start + index).storeBytes(of: byte, as: UInt8.self) }
    writeSignedBlock(pages, signature: start)
    let error = try #require(inspectionError(pages.readable))
    #expect(error.kind == .unterminatedSignature)
    #expect(error.address == UInt(bitPattern: start))
    // The same string with its NUL as the page's last byte reads whole.
    let terminated = pages.guardPage - 6
    for (index, byte) in "v8@?0\0".utf8.enumerated() { (terminated + index).storeBytes(of: byte, as: UInt8.self) }
    writeSignedBlock(pages, signature: terminated)
    #expect(try BlockInfo(inspecting: pages.readable).signature == "v8@?0")
  }

  @Test func extendedLayoutPointerIntoProtNoneMemory() throws {
    let pages = try GuardedPages()
    let signature = pages.readable + 256
    for (index, byte) in "v8@?0\0".utf8.enumerated() { (signature + index).storeBytes(of: byte, as: UInt8.self) }
    writeSignedBlock(
      pages, signature: signature, layout: UInt(bitPattern: pages.guardPage),
      extraFlags: UInt32(CBA_BLOCK_HAS_EXTENDED_LAYOUT))
    let error = try #require(inspectionError(pages.readable))
    #expect(error.kind == .unreadableMemory)
    #expect(error.address == UInt(bitPattern: pages.guardPage))
    // A layout string with a reserved opcode: malformed, with the address of the bad byte.
    let layout = pages.readable + 512
    for (index, byte) in [UInt8(0x30), 0x70, 0x00].enumerated() {
      (layout + index).storeBytes(of: byte, as: UInt8.self)
    }
    writeSignedBlock(
      pages, signature: signature, layout: UInt(bitPattern: layout), extraFlags: UInt32(CBA_BLOCK_HAS_EXTENDED_LAYOUT))
    let malformed = try #require(inspectionError(pages.readable))
    #expect(malformed.kind == .malformedLayout)
    #expect(malformed.address == UInt(bitPattern: layout + 1))
  }

  /// A layout string that ends right before the guard page with no `0x00` is malformed, at the
  /// address just past its last byte. `ProcessMemory.cString` returns the three bytes as
  /// unterminated; appending a NUL anyway would decode them as three strong captures.
  @Test func extendedLayoutRunningIntoProtNoneMemory() throws {
    let pages = try GuardedPages()
    let signature = pages.readable + 256
    for (index, byte) in "v8@?0\0".utf8.enumerated() { (signature + index).storeBytes(of: byte, as: UInt8.self) }
    let layout = pages.guardPage - 3
    for index in 0..<3 { (layout + index).storeBytes(of: UInt8(0x30), as: UInt8.self) }
    writeSignedBlock(
      pages, signature: signature, layout: UInt(bitPattern: layout), extraFlags: UInt32(CBA_BLOCK_HAS_EXTENDED_LAYOUT))
    let error = try #require(inspectionError(pages.readable))
    #expect(error.kind == .malformedLayout)
    #expect(error.address == UInt(bitPattern: layout + 3))
    #expect(error.blockAddress == UInt(bitPattern: pages.readable))
    let hex = { (pointer: UnsafeMutableRawPointer) in String(UInt(bitPattern: pointer), radix: 16) }
    #expect(error.message == "extended layout at 0x\(hex(layout)): missing 0x00 terminator after 3 bytes")
    // The description starts at the block, then names the layout it points to.
    #expect(error.description == "block at 0x\(hex(pages.readable)): \(error.message)")
  }

  /// `BLOCK_USE_STRET` means nothing without `BLOCK_HAS_SIGNATURE` (the compiler leaves it
  /// undefined then): a global block with the stret flag alone does not return through a
  /// hidden pointer; with a signature as well it does.
  @Test func structReturnNeedsSignatureFlag() throws {
    let pages = try GuardedPages()
    let descriptor = pages.readable + 64
    descriptor.storeBytes(of: 0, as: UInt.self)
    descriptor.storeBytes(of: 32, toByteOffset: 8, as: UInt.self)
    writeBlock(
      at: pages.readable, flags: UInt32(CBA_BLOCK_IS_GLOBAL | CBA_BLOCK_USE_STRET), descriptor: descriptor)
    let unsigned = try BlockInfo(inspecting: pages.readable)
    #expect(unsigned.flags.contains(.useStret))
    #expect(unsigned.signature == nil)
    #expect(!unsigned.usesStructReturn)
    let signature = pages.readable + 256
    for (index, byte) in "{S=qqq}8@?0\0".utf8.enumerated() {
      (signature + index).storeBytes(of: byte, as: UInt8.self)
    }
    writeSignedBlock(pages, signature: signature, extraFlags: UInt32(CBA_BLOCK_USE_STRET))
    let signed = try BlockInfo(inspecting: pages.readable)
    #expect(signed.signature == "{S=qqq}8@?0")
    #expect(signed.usesStructReturn)
  }

  @Test func absurdlyLargeSize() throws {
    let pages = try GuardedPages()
    writeSignedBlock(pages, signature: nil)
    (pages.readable + 64).storeBytes(of: UInt.max, toByteOffset: 8, as: UInt.self)
    let error = try #require(inspectionError(pages.readable))
    #expect(error.kind == .implausibleSize)
    // Shown as the unsigned word it is, in hex, never as a negative count.
    #expect(error.message.contains("records a block size of 0xffffffffffffffff bytes"), "\(error.message)")
    (pages.readable + 64).storeBytes(of: UInt(1 << 31), toByteOffset: 8, as: UInt.self)
    #expect(inspectionError(pages.readable)?.kind == .implausibleSize)
  }

  @Test func readableNonBlockIsNotDetectedButItsIsaSaysSo() throws {
    // Readable words that merely look like a block: inspection cannot know better, but the
    // isa names no blocks runtime class.
    let pages = try GuardedPages()
    writeSignedBlock(pages, signature: nil)
    pages.readable.storeBytes(of: UInt(0x1234_5678), as: UInt.self)
    let info = try BlockInfo(inspecting: pages.readable)
    #expect(!info.isaIsBlockClass)
    #expect(info.signature == nil)
  }
}
