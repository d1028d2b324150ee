import BlockSignatureHeaders

extension HeaderReaderError {
  /// The exit status of `table` and `objc protocol` for the error: 64 a name that cannot be
  /// one, 66 a header, file or program that cannot be had, 65 what clang makes of the header.
  var exitStatus: Int32 {
    switch kind {
    case .invalidName: ExitStatus.usage
    case .unreadableHeader, .compilerNotFound, .unavailable: ExitStatus.noInput
    case .compileFailed, .notFound, .unsupported, .probeFailed, .timedOut, .mismatch: ExitStatus.dataError
    }
  }
}

extension HeaderReaderError {
  /// The message as blocksig prints it: the library's advice to give `HeaderReader(clang:)` a
  /// path becomes the option that does it.
  var commandLineMessage: String {
    guard kind == .compilerNotFound, let advice = message.firstRange(of: " (give ") else { return message }
    return message[..<advice.lowerBound] + " (give --clang PATH)"
  }
}
