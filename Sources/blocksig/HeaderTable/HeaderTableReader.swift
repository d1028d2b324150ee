import BlockSignature
import BlockSignatureFFI
import Foundation

/// Reads a struct of callbacks from a C header, with clang as the only judge of its types:
///
/// 1. clang's JSON AST of the struct names its members (a typedef is followed to its struct);
/// 2. the AST of one function declared with each function pointer member's type gives that
///    type's parameters, and whether it is variadic;
/// 3. a probe program, compiled by the same clang, makes a block of each function member's
///    type and of each data member's type and prints the signature clang wrote for it, with
///    `offsetof` and `sizeof`.
///
/// The table read back from the result must lay the struct out as clang does, or nothing is
/// given. The probe runs here, so the struct is the one this machine's clang sees.
struct HeaderTableReader {
  /// Why a table cannot be read: `code` is the exit status (65 the header or the struct,
  /// 66 a file or clang that cannot be had).
  struct Failure: Error, CustomStringConvertible {
    var code: Int32
    var description: String
  }

  /// The header, as a path.
  var header: String
  /// The struct: its tag (`fuse_operations`, `struct fuse_operations`) or a typedef of it.
  var record: String
  /// The clang to run: a path, or a name looked up in `PATH`.
  var clang: String
  /// More arguments for clang (`-I`, `-D`, a standard).
  var compilerArguments: [String]
  /// How long each run of clang or of the probe may take, in seconds.
  var timeLimit = 120

  func read() throws(Failure) -> HeaderTable {
    guard ClangSession.isIdentifier(ClangSession.tag(of: record)) else {
      throw Failure(code: ExitStatus.usage, description: "'\(record)' is not a C struct tag or typedef name")
    }
    let headerPath = URL(fileURLWithPath: header).standardizedFileURL.path
    guard FileManager.default.isReadableFile(atPath: headerPath) else {
      throw Failure(code: ExitStatus.noInput, description: "\(header): no such file, or not readable")
    }
    guard !headerPath.contains("\""), !headerPath.contains("\n") else {
      throw Failure(
        code: ExitStatus.noInput, description: "\(header): a path with a quote or a line break cannot be included")
    }
    let compiler = try Self.executable(clang)
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("blocksig-table-\(UUID().uuidString)")
    do {
      try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    } catch {
      throw Failure(code: ExitStatus.noInput, description: "cannot make a temporary folder: \(error)")
    }
    defer { try? FileManager.default.removeItem(at: folder) }
    let session = ClangSession(
      clang: compiler, arguments: compilerArguments, folder: folder, header: headerPath, timeLimit: timeLimit)

    let (spelling, fields) = try session.recordFields(named: record)
    let functions = try session.functionTypes(of: fields, in: spelling)
    let probed = try session.probe(fields, functions: functions, in: spelling)
    return try Self.table(
      record: record, header: header, fields: fields, functions: functions, probed: probed)
  }

  /// The path of `name`: itself when it has a slash, else the first executable of that name
  /// in `PATH`.
  static func executable(_ name: String) throws(Failure) -> String {
    let candidates =
      name.contains("/")
      ? [name]
      : (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":").map {
        "\($0)/\(name)"
      }
    guard let found = candidates.first(where: { FileManager.default.isExecutableFile(atPath: $0) }) else {
      throw Failure(code: ExitStatus.noInput, description: "\(name): no such compiler (give --clang PATH)")
    }
    return found
  }
}
