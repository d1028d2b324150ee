// The check that `SignatureFrame` (one pass over the bytes) and `SignatureEncoding` +
// `layout(for:)` (a tree) agree on one input: the core's tests run it on every input they have,
// the Runtime's on every fixture's live signature.

import BlockSignature
import Testing

/// Asserts that both paths agree on `bytes` for `model`; returns whether the input was valid.
@discardableResult
package func expectFrameAgreement(
  _ bytes: [UInt8], model: DataModel = .x86_64SysV, sourceLocation: SourceLocation = #_sourceLocation
) -> Bool {
  let text = String(decoding: bytes, as: UTF8.self)
  let tree: Result<(SignatureEncoding, SignatureLayout), SignatureError> = bytes.withUnsafeBufferPointer {
    buffer in
    Result { () throws(SignatureError) -> (SignatureEncoding, SignatureLayout) in
      let signature: SignatureEncoding
      do throws(EncodingError) {
        signature = try SignatureEncoding(parsingBytes: buffer)
      } catch {
        throw SignatureError(error)
      }
      do throws(LayoutError) {
        return (signature, try signature.layout(for: model))
      } catch {
        throw SignatureError(error, signature: signature.description)
      }
    }
  }
  let fast: Result<SignatureFrame, SignatureError> = bytes.withUnsafeBufferPointer { buffer in
    Result { () throws(SignatureError) -> SignatureFrame in try SignatureFrame(parsingBytes: buffer, for: model) }
  }
  switch (tree, fast) {
  case (.success(let (signature, layout)), .success(let frame)):
    #expect(frame.kind == signature.kind, "kind of \(text)", sourceLocation: sourceLocation)
    #expect(frame.returnValue.size == layout.returnLayout.size, "\(text)", sourceLocation: sourceLocation)
    #expect(frame.returnValue.alignment == layout.returnLayout.alignment, "\(text)", sourceLocation: sourceLocation)
    #expect(frame.returnValue.caveats == layout.returnLayout.caveats, "\(text)", sourceLocation: sourceLocation)
    #expect(frame.frameLength == layout.frameLength, "\(text)", sourceLocation: sourceLocation)
    #expect(frame.writtenFrameLength == signature.frameLength?.value, "\(text)", sourceLocation: sourceLocation)
    #expect(frame.offsetsMatch == layout.offsetsMatch, "\(text): \(layout.notes)", sourceLocation: sourceLocation)
    let expected = layout.arguments.map {
      SignatureFrame.Argument(
        size: $0.layout.size, alignment: $0.layout.alignment, caveats: $0.layout.caveats, slotSize: $0.slotSize,
        offset: $0.offset, writtenOffset: $0.writtenOffset)
    }
    #expect(frame.arguments == expected, "\(text)", sourceLocation: sourceLocation)
    // The fast path on its own, when it takes the input (otherwise the frame is the tree's).
    bytes.withUnsafeBufferPointer { buffer in
      if let fastOnly = SignatureFrame.scanningFastPathOnly(buffer, for: model) {
        #expect(fastOnly == frame, "fast path on \(text)", sourceLocation: sourceLocation)
      }
    }
    return true
  case (.failure(let treeError), .failure(let fastError)):
    #expect(treeError == fastError, "\(text)", sourceLocation: sourceLocation)
    return false
  default:
    Issue.record("\(text): tree \(tree) vs frame \(fast)", sourceLocation: sourceLocation)
    return false
  }
}
