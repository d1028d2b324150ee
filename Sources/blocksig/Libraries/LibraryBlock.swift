import ArgumentParser
import BlockSignature
import BlockSignatureRuntime

/// The block that `--library PATH` with `--symbol F` or `--variable V` names, loaded and read
/// the same way by `inspect` and `call`: `const void *F(void)` returns it, or `V` holds it.
struct LibraryBlock {
  /// Why the block cannot be had: the exit code (66 no such file, will not load, no such
  /// symbol; 65 not a function, not a variable, NULL, not a block) and the message.
  struct Failure: Error {
    var code: Int32
    var message: String
    /// The file a file-level problem is in, printed as `FILE: error: …` instead of after the
    /// command's name.
    var file: String? = nil

    /// The failure for `error`: 66 when the library or symbol cannot be had or the file fails
    /// the load check, 65 for a symbol that is not what was asked for or holds NULL.
    init(_ error: LoadedLibraryError) {
      let unreadable: [LoadedLibraryError.Kind] = [.noSuchFile, .cannotLoad, .noSuchSymbol, .notLoadable]
      code = unreadable.contains(error.kind) ? ExitStatus.noInput : ExitStatus.dataError
      message = error.message
      if error.kind == .notLoadable, let separator = error.message.firstRange(of: ": ") {
        file = String(error.message[..<separator.lowerBound])
        message = String(error.message[separator.upperBound...])
      }
    }

    init(code: Int32, message: String) {
      self.code = code
      self.message = message
    }

    /// Prints the failure and returns the exit code to throw.
    func report() -> ExitCode {
      guard let file else { return Diagnostics.fail(code, message) }
      Diagnostics.write("\(file): error: \(message)\n")
      return ExitCode(code)
    }
  }

  let block: UnsafeRawPointer
  let info: BlockInfo
  /// How messages name the block: `lib.so: 'bf_int_long'`.
  let place: String
  /// The file the library was loaded from.
  let path: String

  /// Loads `library` (a path, or a bare name searched for as dlopen does) once the file
  /// passes the load check, and reads the block, which must be readable as a block; whether
  /// its isa is a block class is ``blockClassFailure(_:place:)``'s. Runs the library's code:
  /// call it in the child of a ``LibraryCodeRun``, whose phases `child` marks.
  ///
  /// - Precondition: exactly one of `symbol` and `variable` is given.
  init(library: String, symbol: String?, variable: String?, marking child: ContainedRun) throws(Failure) {
    let name = symbol ?? variable ?? ""
    let block: UnsafeRawPointer
    do {
      let checked = try LoadedLibrary.checkedFile(for: library)
      child.mark("loading \(checked) (the dynamic linker and the library's constructors)")
      let loaded = try LoadedLibrary(loading: checked)
      path = loaded.path
      child.mark(symbol != nil ? "\(name)(), called for its block," : "reading the variable '\(name)'")
      block = try symbol != nil ? loaded.blockReturned(byFunction: name) : loaded.blockHeld(byVariable: name)
      child.mark("reading the block")
    } catch {
      throw Failure(error)
    }
    place = "\(path): '\(name)'"
    do {
      info = try BlockInfo(inspecting: block)
    } catch {
      throw Failure(code: ExitStatus.dataError, message: "\(place) is not a block: \(error)")
    }
    self.block = block
  }

  /// The failure (65) for a block whose isa is not a class of a blocks runtime, which must
  /// not be called or trusted further; nil when it is one.
  static func blockClassFailure(_ info: BlockInfo, place: String) -> Failure? {
    guard !info.isaIsBlockClass else { return nil }
    let isa = hex(info.isa)
    return Failure(
      code: ExitStatus.dataError,
      message:
        "\(place) is not a block: its isa \(isa) (\(info.isaSymbol ?? "no symbol")) is not a blocks runtime class")
  }

  /// The failure (65) for a block whose invoke function, or a helper its flags announce, does
  /// not lie in executable memory: calling or copying it would crash; nil when all do.
  static func codeFailure(_ info: BlockInfo, place: String) -> Failure? {
    guard let (role, address) = info.codeOutsideExecutableMemory else { return nil }
    return Failure(
      code: ExitStatus.dataError,
      message: "\(place) is not a block: its \(role) \(address.hexadecimal()) is not in executable memory")
  }
}
