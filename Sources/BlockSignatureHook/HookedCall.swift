// The view a hook gets of one call of a hooked block: its arguments where C left them, the
// result buffer, and the rest of the chain (the hooks added later, then the block's own
// invoke) to call.

import BlockSignature
import BlockSignatureFFI

/// One call of a hooked block, as a hook sees it; valid only while the hook runs. Parameters
/// are numbered from 0, the block itself left out.
///
///     let hook = try BlockCallHook(on: block, before: { call in
///       print(call.arguments)                       // [.signed(3), .signed(4)]
///       try? call.setArgument(0, to: .signed(30))   // the block sees 30
///     })
///
/// The arguments are the bytes C passed: a `before` hook changes what the block receives by
/// writing them (``setArgument(_:to:)`` or through ``argumentAddress(_:)``). The result buffer
/// is what C receives: an `after` hook reads ``result`` and may replace it with
/// ``setResult(_:)``.
public struct HookedCall {
  /// The call's site, which is never freed: held without counting a reference.
  unowned(unsafe) let site: HookSite
  /// The hook's place in the chain: ``callOriginal()`` runs the hooks after it.
  let layer: Int
  /// The passed arguments' addresses, the block pointer's slot first (libffi's order).
  let passed: UnsafeMutablePointer<UnsafeMutableRawPointer?>
  /// The registers the entry saved, when the call came through it.
  let saved: SavedCall?
  /// The block being called.
  public let block: UnsafeRawPointer
  /// Where the return value goes: ``resultSize`` bytes (a narrow integer widened to a whole
  /// machine word, as the ABI wants). For a result returned in memory this is the caller's
  /// buffer.
  public let resultAddress: UnsafeMutableRawPointer

  /// The block's signature, in block form.
  public var signature: MethodSignature { site.callInterface.signature }

  /// The number of parameters, the block itself not counted.
  public var argumentCount: Int { site.callInterface.argumentShapes.count - 1 }

  /// The bytes of the return value (0 for `void`).
  public var resultSize: Int { site.callInterface.returnShape.size }

  /// The address of parameter `index`'s bytes, laid out as C lays the type out: a hook may
  /// write them.
  ///
  /// - Precondition: `0 <= index < argumentCount`.
  public func argumentAddress(_ index: Int) -> UnsafeMutableRawPointer {
    precondition(index >= 0 && index < argumentCount, "argument \(index) of \(argumentCount)")
    guard let slot = site.callInterface.passedIndex[index + 1], let address = passed[slot] else {
      return ZeroSizeArgument.address
    }
    return address
  }

  /// Parameter `index` as a typed value (a union reads as its first member, a `char *` as a
  /// string).
  public func argument(_ index: Int) -> CValue {
    site.callInterface.argumentShapes[index + 1].load(from: argumentAddress(index))
  }

  /// Every parameter as a typed value.
  public var arguments: [CValue] { (0..<argumentCount).map(argument) }

  /// Writes `value` over parameter `index`, checked against its type: the rest of the chain
  /// and the block see it. A string must be given as `.pointer` (an address that outlives the
  /// call): a Swift string has no memory that does.
  ///
  /// - Throws: ``BlockCallHookError`` (``BlockCallHookError/Kind/unsupportedType``) naming what does
  ///   not fit; the argument is then unchanged.
  public func setArgument(_ index: Int, to value: CValue) throws(BlockCallHookError) {
    let type = site.callInterface.signature.arguments[index + 1].type
    do throws(InvocationError) {
      try value.store(as: type, to: argumentAddress(index), model: site.callInterface.signature.model)
    } catch {
      throw BlockCallHookError(kind: .unsupportedType, message: "argument \(index): \(error.description)")
    }
  }

  /// The return value as it is now: what the chain returned, once it has run (`CValue.void`
  /// for a `void` block).
  public var result: CValue { site.callInterface.returnShape.load(from: resultAddress) }

  /// Writes `value` as the return value, checked against the return type.
  ///
  /// - Throws: ``BlockCallHookError`` (``BlockCallHookError/Kind/unsupportedType``) naming what does
  ///   not fit; the result is then unchanged.
  public func setResult(_ value: CValue) throws(BlockCallHookError) {
    let type = site.callInterface.signature.encoding.returnType
    do throws(InvocationError) {
      try value.store(as: type, to: resultAddress, model: site.callInterface.signature.model)
    } catch {
      throw BlockCallHookError(kind: .unsupportedType, message: "the result: \(error.description)")
    }
    site.callInterface.returnShape.widenResult(at: resultAddress)
  }

  /// Runs the rest of the chain with the arguments as they are now: the hooks added after
  /// this one, then the block's own invoke. The result lands in ``resultAddress``. An
  /// `instead` hook that never calls it replaces the block.
  public func callOriginal() {
    site.proceed(from: layer + 1, block: block, result: resultAddress, passed: passed, saved: saved)
  }

  /// Runs the rest of the chain with other arguments, one per parameter, and returns its
  /// result (also left in ``resultAddress``).
  ///
  ///     let hook = try BlockCallHook(on: add, instead: { call in
  ///       _ = try? call.callOriginal(with: [.signed(10), .signed(20)])  // C receives 30
  ///     })
  ///
  /// - Throws: ``BlockCallHookError`` for a wrong count or a value that does not fit its
  ///   parameter; nothing is called then.
  @discardableResult
  public func callOriginal(with values: [CValue]) throws(BlockCallHookError) -> CValue {
    guard values.count == argumentCount else {
      throw BlockCallHookError(
        kind: .unsupportedType, message: "the block takes \(argumentCount) arguments, got \(values.count)")
    }
    let interface = site.callInterface
    let sizes = interface.argumentShapes.map { ($0.size + 15) & ~15 }
    let storage = UnsafeMutableRawPointer.allocate(byteCount: max(16, sizes.reduce(0, +)), alignment: 16)
    defer { storage.deallocate() }
    let others = UnsafeMutablePointer<UnsafeMutableRawPointer?>.allocate(capacity: max(1, interface.passedCount))
    defer { others.deallocate() }
    others[0] = passed[0]
    var offset = sizes[0]
    for (index, value) in values.enumerated() {
      let address = storage + offset
      offset += sizes[index + 1]
      address.initializeMemory(as: UInt8.self, repeating: 0, count: sizes[index + 1])
      do throws(InvocationError) {
        try value.store(
          as: interface.signature.arguments[index + 1].type, to: address, model: interface.signature.model)
      } catch {
        throw BlockCallHookError(kind: .unsupportedType, message: "argument \(index): \(error.description)")
      }
      if let slot = interface.passedIndex[index + 1] { others[slot] = address }
    }
    site.proceed(from: layer + 1, block: block, result: resultAddress, passed: others, saved: nil)
    return result
  }
}
