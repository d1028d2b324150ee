import BlockSignature
import BlockSignatureRuntime
import BlockSignatureSystem
import CFFI

/// A C callback table implemented by blocks (BlocksKit's `A2DynamicDelegate` for C APIs): each
/// function member a libffi closure that forwards to the block implementing it — a clang block,
/// a Swift `@convention(block)` closure or a ``DynamicBlock`` — or to a real delegate's function.
///
///     let sax = try CallbackTable(parsing: saxDescription, name: "xmlSAXHandler")
///     let delegate = try DynamicDelegate(sax)
///     let start: @convention(block) (UnsafeRawPointer?, UnsafePointer<CChar>?, UnsafeRawPointer?) -> Void = {
///       _, name, _ in print("start", String(cString: name!))
///     }
///     try delegate.implement("startElement", withBlock: unsafeBitCast(start, to: UnsafeRawPointer.self))
///     xmlSAXUserParseMemory(delegate.table, delegate.context, document, length)
///
/// Each block's signature is checked against its member's with `CompatibilityChecker` at
/// ``level``; a member whose first parameter is the context (`void *`) also takes a block that
/// leaves it out. Members with no block forward to the ``realDelegate`` when it has a function
/// there, and are otherwise NULL in the table (C APIs test for NULL) or, with
/// ``UnimplementedMembers/returnZero``, return zero.
///
/// ``table`` and ``context`` are valid while the delegate lives. Implementing or removing a
/// member while C calls through the table is safe: each call sees the block before or after the
/// change, and a block being called stays alive until its call returns. Releasing the delegate
/// while C is inside a member is safe too: that call finishes with its block and returns its
/// result, and the member's closure and block are freed after it returns. C must not start a
/// call through the table after the delegate is released: the table is freed with it.
public final class DynamicDelegate: @unchecked Sendable {
  /// Another table and its context, called for the members the delegate has no block for.
  public struct RealDelegate: @unchecked Sendable {
    /// A table laid out as the delegate's.
    public var table: UnsafeRawPointer
    /// What the real delegate's functions receive as their context.
    public var context: UnsafeMutableRawPointer?

    /// A real delegate: `table` (laid out as the delegate's) and its `context`.
    public init(table: UnsafeRawPointer, context: UnsafeMutableRawPointer?) {
      self.table = table
      self.context = context
    }
  }

  /// What the table holds for a function member with no block and no real delegate's function.
  public enum UnimplementedMembers: Sendable {
    /// NULL, which C APIs read as "not implemented".
    case null
    /// A function that returns zero (0, NULL, a zeroed structure).
    case returnZero
  }

  /// The table's description.
  public let callbackTable: CallbackTable
  /// The filled struct C reads, valid while the delegate lives.
  public let table: UnsafeMutableRawPointer
  /// The delegate for members without a block.
  public let realDelegate: RealDelegate?
  /// The level blocks are checked at.
  public let level: CompatibilityLevel
  /// What a member with nothing to call holds.
  public let unimplementedMembers: UnimplementedMembers
  let slots: [String: MemberSlot]
  /// Serialises changes to the table.
  private let edits = Locked<Void>(())
  /// Strings written into data members.
  let strings = CStringTable()

  /// The value to pass as the C API's context (its `user_data`): the delegate's address. A
  /// block that takes the context receives it.
  public var context: UnsafeMutableRawPointer { Unmanaged.passUnretained(self).toOpaque() }

  /// Makes a delegate for `callbackTable`. Data members start as the real delegate's (zero
  /// without one).
  ///
  /// - Throws: `DelegateError/Kind/uncallableMember` for a member whose signature cannot be
  ///   called.
  public init(
    _ callbackTable: CallbackTable, realDelegate: RealDelegate? = nil, level: CompatibilityLevel = .abi,
    unimplementedMembers: UnimplementedMembers = .null
  ) throws(DelegateError) {
    var slots: [String: MemberSlot] = [:]
    for member in callbackTable.members {
      guard let signature = member.signature else { continue }
      slots[member.name] = try MemberSlot(member: member, signature: signature, realDelegate: realDelegate)
    }
    self.callbackTable = callbackTable
    self.realDelegate = realDelegate
    self.level = level
    self.unimplementedMembers = unimplementedMembers
    self.slots = slots
    table = .allocate(byteCount: max(1, callbackTable.size), alignment: max(1, callbackTable.alignment))
    table.initializeMemory(as: UInt8.self, repeating: 0, count: max(1, callbackTable.size))
    for member in callbackTable.members {
      if let slot = slots[member.name] {
        publish(slot)
      } else if let realDelegate {
        table.advanced(by: member.offset).copyMemory(from: realDelegate.table + member.offset, byteCount: member.size)
      }
    }
  }

  deinit {
    table.deallocate()
  }

  /// Implements `member` with `block`, whose signature must fit the member's at ``level``
  /// (with or without the context parameter). The block is copied; nothing is stored when it
  /// does not fit.
  ///
  /// - Throws: `DelegateError`: an unknown or data member, a block that does not fit (with the
  ///   checker's diagnostics), a pointer that is not a block.
  public func implement(_ member: String, withBlock block: UnsafeRawPointer) throws(DelegateError) {
    let slot = try self.slot(member)
    let implementation = try Self.implementation(of: slot.member, with: block, level: level)
    edits.withLock { _ in
      slot.current.withLock { $0 = implementation }
      publish(slot)
    }
  }

  /// Implements `member` with a made block.
  public func implement(_ member: String, with block: DynamicBlock) throws(DelegateError) {
    try block.withBlock { pointer throws(DelegateError) in try implement(member, withBlock: pointer) }
  }

  /// The block implementing `member` (the delegate's copy), or nil.
  public func blockImplementation(for member: String) throws(DelegateError) -> UnsafeRawPointer? {
    try slot(member).current.withLock { $0?.invocation.unsafeBlock }
  }

  /// Removes `member`'s block: the member forwards to the real delegate again, or is NULL (or
  /// returns zero) in the table. Calls already running finish with the block.
  public func removeBlockImplementation(for member: String) throws(DelegateError) {
    let slot = try self.slot(member)
    edits.withLock { _ in
      slot.current.withLock { $0 = nil }
      publish(slot)
    }
  }

  /// What the table holds for function member `member`: the delegate's closure, or NULL.
  public func function(for member: String) throws(DelegateError) -> UnsafeRawPointer? {
    let slot = try self.slot(member)
    return cffi_read_pointer(pointerSlot(of: slot.member))
  }

  /// Writes the closure's address into the member's place in the table, or NULL when it has
  /// nothing to call and the delegate leaves such members NULL.
  private func publish(_ slot: MemberSlot) {
    let callable =
      slot.current.withLock { $0 != nil } || slot.realFunction != nil || unimplementedMembers == .returnZero
    cffi_publish_pointer(pointerSlot(of: slot.member), callable ? slot.closure.code : nil)
  }

  private func pointerSlot(of member: CallbackTable.Member) -> UnsafeMutablePointer<UnsafeMutableRawPointer?> {
    (table + member.offset).assumingMemoryBound(to: UnsafeMutableRawPointer?.self)
  }

  func slot(_ name: String) throws(DelegateError) -> MemberSlot {
    if let slot = slots[name] { return slot }
    if callbackTable.member(named: name) != nil {
      throw DelegateError(kind: .wrongMemberKind, member: name, message: "a data member has no function")
    }
    throw DelegateError(
      kind: .unknownMember, member: name, message: "\(callbackTable.name) has no member called \(name)")
  }
}
