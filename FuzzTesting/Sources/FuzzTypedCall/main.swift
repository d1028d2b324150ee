// Fuzzes the typed call (`BlockInvocation.invoke(_:)`) into a block made for the purpose. The
// input is split at its first NUL byte into a signature (any form) and a JSON array: the
// return value first (left out for `void`), then one value per parameter: the array read with
// `CValue(json:)`, each value then read as its C type with `converted(to:model:)` (the walk
// `CValue(json:as:model:)` reads `blocksig call`'s arguments with).
//
// A `DynamicBlock` of the signature records the arguments it receives and returns the given
// value (zero when that value does not fit the return type). Every call is refused with an error or made; a call made must reach the block, and
// calling again with what the block received must deliver the same arguments and the same
// result (what a call passes survives a second trip through the ABI unchanged).
import BlockSignature
import BlockSignatureFFI
import Synchronization

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzTypedCall(_ start: UnsafeRawPointer?, _ count: Int) -> CInt {
  guard let start else { return 0 }
  let bytes = UnsafeRawBufferPointer(start: start, count: count)
  guard let split = bytes.firstIndex(of: 0), let model = DataModel.host else { return 0 }
  let signatureText = String(decoding: UnsafeRawBufferPointer(rebasing: bytes[..<split]), as: UTF8.self)
  let valuesText = String(decoding: UnsafeRawBufferPointer(rebasing: bytes[(split + 1)...]), as: UTF8.self)
  guard case .aggregate(var items)? = try? CValue(json: valuesText) else { return 0 }

  let received = Mutex<[CValue]?>(nil)
  let returned = Mutex<CValue>(.void)
  let block: DynamicBlock
  do {
    block = try DynamicBlock(signature: signatureText, failure: .returnZero) { arguments in
      received.withLock { $0 = arguments }
      return returned.withLock { $0 }
    }
  } catch {
    _ = error.description
    return 0
  }
  let signature = block.signature
  let returnType = signature.encoding.returnType
  if case .primitive(.void) = returnType.unqualified {
  } else {
    guard !items.isEmpty,
      let value = try? items.removeFirst().converted(to: returnType, model: model)
    else { return 0 }
    returned.withLock { $0 = value }
  }
  let parameters = signature.encoding.arguments.dropFirst()
  guard items.count == parameters.count else { return 0 }
  var values: [CValue] = []
  for (item, parameter) in zip(items, parameters) {
    guard let value = try? item.converted(to: parameter.type, model: model) else { return 0 }
    values.append(value)
  }
  guard let invocation = try? BlockInvocation(block: block.unsafeBlock) else { return 0 }
  let first: CValue
  do {
    first = try invocation.invoke(values)
  } catch {
    precondition(received.withLock { $0 } == nil, "a refused call reached the block: \(error)")
    return 0
  }
  guard let delivered = received.withLock({ $0 }) else { preconditionFailure("a call made did not reach the block") }
  precondition(delivered.count == values.count, "the block received \(delivered.count) of \(values.count) arguments")
  received.withLock { $0 = nil }
  returned.withLock { $0 = first }
  let second: CValue
  do {
    second = try invocation.invoke(delivered)
  } catch {
    preconditionFailure("what the block received, passed again, is refused: \(error)")
  }
  let again = received.withLock { $0 } ?? []
  precondition(
    again.map(\.jsonText) == delivered.map(\.jsonText),
    "passed again, \(delivered) arrives as \(again)")
  precondition(second.jsonText == first.jsonText, "returned again, \(first) comes back as \(second)")
  return 0
}
