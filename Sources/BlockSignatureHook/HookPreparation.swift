// What hooking a block needs to know first: that it can be hooked (its kind, its descriptor),
// the signature its calls follow, and that signature prepared for libffi (one preparation per
// signature text, kept for the life of the process: sites hold it).

import BlockSignature
import BlockSignatureFFI
import BlockSignatureRuntime
import Synchronization

enum HookPreparation {
  private static let interfaces = Mutex<[String: CallInterface]>([:])

  /// A declared signature (any form) in block form, laid out for this machine.
  static func blockForm(of text: String) throws(BlockCallHookError) -> MethodSignature {
    guard let model = DataModel.host else {
      throw BlockCallHookError(kind: .unsupportedType, message: "no data model describes this machine")
    }
    do {
      return try MethodSignature(parsing: text, model: model).converted(to: .block)
    } catch {
      throw BlockCallHookError(kind: .invalidSignature, message: "the declared signature \(text): \(error)")
    }
  }

  /// The facts about `block` a first hook needs, checked: a heap or global block with a
  /// descriptor of the usual form and a signature (its own, or `declared`, which must fit it).
  static func record(for block: UnsafeRawPointer, declared: MethodSignature?, observing: Bool = false)
    throws(BlockCallHookError) -> HookedBlock
  {
    let info: BlockInfo
    do {
      info = try BlockInfo(inspecting: block)
    } catch {
      throw BlockCallHookError(kind: .notABlock, message: error.description)
    }
    switch info.kind {
    case .heap, .global: break
    case .stack, .noescape:
      throw BlockCallHookError(
        kind: .stackBlock,
        message:
          "a \(info.kind.rawValue) block lives in its caller's frame, which ends when the caller returns; hook its heap copy (_Block_copy) instead"
      )
    }
    guard !info.hasSmallDescriptor else {
      throw BlockCallHookError(kind: .unsupportedDescriptor, message: "the block has a small, self-relative descriptor")
    }
    guard let invoke = UnsafeRawPointer(bitPattern: info.invokeAddress),
      let descriptor = UnsafeRawPointer(bitPattern: info.descriptorAddress)
    else {
      throw BlockCallHookError(kind: .notABlock, message: "the block's invoke or descriptor is NULL")
    }
    // A block without a signature can still be observed: its calls pass through untouched.
    let unsigned = observing && declared == nil && info.signatureBytes == nil
    let interface = unsigned ? nil : try interface(for: try resolve(info, declared: declared))
    return HookedBlock(
      block: UnsafeMutableRawPointer(mutating: block), kind: info.kind, flags: info.flags, interface: interface,
      invoke: try HookInvoke.code(for: interface), originalInvoke: invoke, originalDescriptor: descriptor)
  }

  /// The signature calls follow: the declared one, checked against the block's own when it has
  /// one, or the block's own.
  private static func resolve(_ info: BlockInfo, declared: MethodSignature?) throws(BlockCallHookError)
    -> MethodSignature
  {
    guard let model = DataModel.host else {
      throw BlockCallHookError(kind: .unsupportedType, message: "no data model describes this machine")
    }
    let own: MethodSignature?
    do {
      own = info.signatureBytes == nil ? nil : try MethodSignature(block: info, model: model)
    } catch {
      throw BlockCallHookError(kind: .invalidSignature, message: "the block's signature: \(error)")
    }
    switch (own, declared) {
    case (nil, nil):
      throw BlockCallHookError(
        kind: .missingSignature,
        message:
          "the block has no signature (BLOCK_HAS_SIGNATURE is \(info.flags.contains(.hasSignature) ? "set, the pointer NULL" : "clear")); declare one"
      )
    case (let own?, nil): return own
    case (nil, let declared?): return declared
    case (let own?, let declared?):
      let report = CompatibilityChecker(level: .abi, model: model).check(own.encoding, against: declared.encoding)
      guard report.isCompatible else {
        let first = report.diagnostics.first { $0.severity == .error }.map(\.message) ?? "incompatible"
        throw BlockCallHookError(
          kind: .invalidSignature,
          message: "the block's signature \(own) does not fit the declared \(declared): \(first)")
      }
      return declared
    }
  }

  /// `signature` prepared for libffi, shared by every hook of that signature text.
  private static func interface(for signature: MethodSignature) throws(BlockCallHookError) -> CallInterface {
    let key = signature.description
    if let prepared = interfaces.withLock({ $0[key] }) { return prepared }
    do {
      let prepared = try CallInterface(signature: signature, model: signature.model)
      return interfaces.withLock { interfaces in
        if let other = interfaces[key] { return other }
        interfaces[key] = prepared
        return prepared
      }
    } catch {
      throw BlockCallHookError(error)
    }
  }
}
