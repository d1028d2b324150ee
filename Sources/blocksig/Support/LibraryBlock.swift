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
  }

  let block: UnsafeRawPointer
  let info: BlockInfo
  /// How messages name the block: `lib.so: 'bf_int_long'`.
  let place: String

  /// Loads `library` with dlopen (its constructors run) and reads the block, which must be
  /// readable as a block; whether its isa is a block class is ``blockClassFailure(_:place:)``'s.
  ///
  /// - Precondition: exactly one of `symbol` and `variable` is given.
  init(library: String, symbol: String?, variable: String?) throws(Failure) {
    let name = symbol ?? variable ?? ""
    let block: UnsafeRawPointer
    do {
      let loaded = try LoadedLibrary(path: library)
      block = try symbol != nil ? loaded.blockReturned(byFunction: name) : loaded.blockHeld(byVariable: name)
    } catch {
      let unreadable = [.noSuchFile, .cannotLoad, .noSuchSymbol].contains(error.kind)
      let code = unreadable ? ExitStatus.noInput : ExitStatus.dataError
      // A bare name is a file in the current folder, not searched for as dlopen would.
      let hint =
        error.kind == .noSuchFile && !library.contains("/")
        ? " (--library takes a file path: give the library's full path)" : ""
      throw Failure(code: code, message: error.message + hint)
    }
    place = "\(library): '\(name)'"
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
