// The entry points of `SignatureFrame`'s fast path, the frame scanner (`FrameScanner`: how it
// stands on the one reader and when it hands over to the tree is in the DocC article "One
// reader of the grammar").

extension SignatureFrame {
  /// Arguments the fast path holds before it makes the array (more: the tree parser runs).
  static let fastArgumentCapacity = 16

  /// The largest of the fast path's temporary allocations, in bytes: at most 1 KiB stays on
  /// the stack.
  package static var fastPathStackBytes: Int {
    max(
      MemoryLayout<ReaderNesting>.stride * MeasureNesting.capacity,
      MemoryLayout<MeasureNesting>.stride * MeasureNesting.capacity,
      MemoryLayout<ScannedArgument>.stride * fastArgumentCapacity,
      MemoryLayout<Argument>.stride * fastArgumentCapacity)
  }

  /// How the fast path ended.
  enum FastScan {
    case frame(SignatureFrame)
    /// The reader's error: the tree parser's too, which the same reader runs over the same bytes.
    case failed(EncodingError)
    /// Something the fast path does not finish (see ``scanGeneral(_:model:options:)``).
    case handedOver

    var frame: SignatureFrame? {
      if case .frame(let frame) = self { return frame }
      return nil
    }
  }

  /// The single pass over the encodings the fast path handles. The open nodes and the arguments
  /// live in the caller's stack frame until the one array of arguments is made.
  @inline(__always)
  static func scanFast(
    _ bytes: UnsafeBufferPointer<UInt8>, rules: LayoutRules, maximumDepth: Int
  ) -> FastScan {
    scanFast(bytes, rules: rules, maximumDepth: maximumDepth, storage: nil, twoPasses: nil)
  }

  /// The fast path, with the arguments copied into the array of `storage` for their count (its
  /// buffer is reused when no earlier frame still holds it) and shared with the result.
  @inline(__always)
  static func scanFast(
    _ bytes: UnsafeBufferPointer<UInt8>, rules: LayoutRules, maximumDepth: Int, reusing storage: inout [[Argument]]
  ) -> FastScan {
    withUnsafeMutablePointer(to: &storage) {
      scanFast(bytes, rules: rules, maximumDepth: maximumDepth, storage: $0, twoPasses: nil)
    }
  }

  /// The fast path; the arguments go to a new array, or into `storage` (one array per argument
  /// count) when there is one.
  /// `twoPasses` (for tests) is set when the one pass handed over to the two passes.
  @inline(__always)
  static func scanFast(
    _ bytes: UnsafeBufferPointer<UInt8>, rules: LayoutRules, maximumDepth: Int,
    storage: UnsafeMutablePointer<[[Argument]]>?, twoPasses: UnsafeMutablePointer<Bool>?
  ) -> FastScan {
    guard let base = bytes.baseAddress, !bytes.isEmpty else { return .handedOver }
    let depth = MeasureNesting.capacity
    return withUnsafeTemporaryAllocation(of: ReaderNesting.self, capacity: depth) { nesting in
      withUnsafeTemporaryAllocation(of: MeasureNesting.self, capacity: depth) { stack in
        withUnsafeTemporaryAllocation(of: ScannedArgument.self, capacity: fastArgumentCapacity) { read in
          withUnsafeTemporaryAllocation(of: Argument.self, capacity: fastArgumentCapacity) { arguments in
            var scanner = FrameScanner(
              reader: EncodingReader(
                base: base, count: bytes.count, maximumDepth: maximumDepth, stack: nesting.baseAddress!,
                capacity: depth),
              measure: FrameMeasure(rules: rules, stack: stack.baseAddress!))
            if let frame = scanner.scanSignature(
              reading: read.baseAddress!, into: arguments.baseAddress!, storage: storage, twoPasses: twoPasses)
            {
              return .frame(frame)
            }
            return scanner.reader.failure == nil ? .handedOver : .failed(scanner.reader.error())
          }
        }
      }
    }
  }
}
