import BlockSignature
import BlockSignatureFFI

/// A block passed to a method that takes one (`sortedArrayUsingComparator:`,
/// `enumerateObjectsUsingBlock:`), checked against the block type the method's header declares.
/// The runtime's encoding of a block parameter says only `@?`; the block's own type is in the
/// header (`NSComparator`, `GSEnumeratorBlock`), and `HeaderReader.blockSignature(ofType:header:)`
/// gives the signature clang writes for it.
///
///     let comparator = try reader.blockSignature(ofType: "NSComparator", header: foundationHeader)
///     let byLength: @convention(block) (UnsafeRawPointer?, UnsafeRawPointer?) -> Int = { a, b in … }
///     let argument = try withExtendedLifetime(byLength) {
///       try ObjCBlockArgument(block: unsafeBitCast(byLength, to: UnsafeRawPointer.self), expecting: comparator)
///     }
///     let sorted = try array.sendForObject("sortedArrayUsingComparator:", argument.value)
///
/// The block may be a Swift `@convention(block)` closure (its pointer), a `DynamicBlock` or any
/// block pointer; its signature must fit `expecting` at `level` (`abi` by default), or it is
/// refused with the checker's diagnostics. (A generic parameter cannot take the closure itself:
/// on Linux the Swift runtime has no type metadata for `@convention(block)` function types, and
/// a generic use of one crashes.) The argument holds a copy of the block (`_Block_copy`) for as long as
/// it lives, so keep it until the message returns; a method that keeps the block (an
/// operation, an observer) copies it in turn and releases that copy itself.
public final class ObjCBlockArgument: @unchecked Sendable {
  /// The block type's signature the block was checked against.
  public let expected: MethodSignature
  /// The checked block and the call its signature describes; it holds the copy.
  public let invocation: BlockInvocation

  /// Checks `block` against `expected` at `level` and keeps a copy of it.
  ///
  /// - Parameters:
  ///   - block: A block of any kind.
  ///   - expected: The signature of the block type the method declares.
  ///   - level: How closely the block's signature must fit.
  /// - Throws: ``ObjCError``: ``ObjCError/Kind/incompatibleSignature`` with the checker's
  ///   diagnostics, ``ObjCError/Kind/invalidSignature`` for a block without a usable signature,
  ///   ``ObjCError/Kind/invalidCall`` for a pointer that is not a block.
  public init(block: UnsafeRawPointer, expecting expected: MethodSignature, level: CompatibilityLevel = .abi)
    throws(ObjCError)
  {
    guard expected.kind == .block else {
      throw ObjCError(kind: .invalidSignature, message: "\(expected) is not a block's signature")
    }
    self.expected = expected
    do {
      invocation = try BlockInvocation(block: block, declaredSignature: expected.description, level: level)
    } catch {
      throw ObjCError(invocationError: error, what: "a block argument of type \(expected)")
    }
  }

  /// Checks a made block against `expected` at `level`.
  ///
  /// - Parameters:
  ///   - block: The made block.
  ///   - expected: The signature of the block type the method declares.
  ///   - level: How closely the block's signature must fit.
  /// - Throws: As ``init(block:expecting:level:)``.
  public convenience init(_ block: DynamicBlock, expecting expected: MethodSignature, level: CompatibilityLevel = .abi)
    throws(ObjCError)
  {
    defer { withExtendedLifetime(block) {} }
    try self.init(block: block.unsafeBlock, expecting: expected, level: level)
  }

  /// The block (the argument's copy): valid while the argument lives.
  public var block: UnsafeRawPointer { invocation.unsafeBlock }

  /// The block as a message argument.
  public var value: CValue { .pointer(UInt(bitPattern: block)) }
}
