// Checking a live block against a Swift function type.

import BlockSignature
import BlockSignatureBinary

extension CompatibilityChecker {
  /// Checks a live block (for example a Swift `@convention(block)` closure, through
  /// `unsafeBitCast(closure, to: UnsafeRawPointer.self)` and ``BlockInfo/init(inspecting:runtime:)``)
  /// against a Swift function type.
  ///
  /// - Throws: `SignatureError` when the block has no signature or a malformed one.
  public func check(block: BlockInfo, against function: SwiftFunctionType) throws(SignatureError)
    -> CompatibilityReport
  {
    check(try MethodSignature(block: block, model: model).encoding, against: function)
  }
}
