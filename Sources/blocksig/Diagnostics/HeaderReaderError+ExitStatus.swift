import ArgumentParser
import BlockSignatureHeaders

extension HeaderReaderError {
  /// The exit status of `table` and `objc protocol` for the error: 64 a name that cannot be
  /// one, 66 a header, file or program that cannot be had, 65 what clang makes of the header,
  /// 130 an interrupt.
  var exitStatus: Int32 {
    switch kind {
    case .interrupted: ExitStatus.interrupted
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

extension HeaderReaderError {
  /// Prints the error (nothing for an interrupt: the user knows), with what to do when clang
  /// cannot compile the header, and returns the exit code. `gnustep` says whether the command
  /// has `--gnustep` to suggest.
  func report(offeringGNUstep gnustep: Bool = false) -> ExitCode {
    guard kind != .interrupted else { return ExitCode(exitStatus) }
    let code = Diagnostics.fail(exitStatus, commandLineMessage)
    if kind == .compileFailed {
      Diagnostics.write(
        "\(Diagnostics.command): note: give clang what the header needs: -I FOLDER for the headers it includes, "
          + "-D NAME for its macros\(gnustep ? ", or --gnustep for GNUstep's headers" : "")\n")
    }
    return code
  }
}
