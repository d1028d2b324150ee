import BlockSignature
import BlockSignatureValues
import Foundation

/// Reads C and Objective-C declarations from a header, with clang as the only judge of their
/// types: clang's AST names what the header declares, and a probe program compiled by the same
/// clang and run here prints what clang writes for each type. Nothing is taken apart by hand.
///
///     let reader = HeaderReader(arguments: ["-I", "/usr/include/libxml2"])
///     let table = try reader.table(header: "/usr/include/libxml2/libxml/parser.h", struct: "xmlSAXHandler")
///     table.members[0].name      // "internalSubset"
///     table.table.size == table.size  // the table's layout is clang's
///
/// The probe runs in this process's machine, with any constructor the header defines: read
/// only headers you trust. Each run of clang or of the probe is killed after ``timeLimit``
/// seconds. Files go to a temporary folder of their own, removed before a read returns.
public struct HeaderReader: Hashable, Sendable {
  /// The clang to run: a path, or a name looked up in `PATH`.
  public var clang: String
  /// More arguments for clang (`-I`, `-D`, a standard), given to every run.
  public var arguments: [String]
  /// How long each run of clang or of the probe may take, in seconds.
  public var timeLimit: Int

  /// A reader that runs `clang` with `arguments`, each run limited to `timeLimit` seconds.
  public init(clang: String = "clang", arguments: [String] = [], timeLimit: Int = 120) {
    self.clang = clang
    self.arguments = arguments
    self.timeLimit = timeLimit
  }

  /// Reads a struct of callbacks from `header`: each member's encoding (for a function
  /// pointer, the signature clang writes for a block of its type), offset and size, and the
  /// `CallbackTable` read back from them, whose layout must be clang's.
  ///
  /// 1. clang's JSON AST of the struct names its members (a typedef is followed to its struct);
  /// 2. the AST of one function declared with each function pointer member's type gives that
  ///    type's parameters, and whether it is variadic;
  /// 3. a probe program makes a block of each function member's type and of each data
  ///    member's type and prints the signature clang wrote for it, with `offsetof` and `sizeof`.
  ///
  ///     let table = try HeaderReader().table(header: "ops.h", struct: "ops")
  ///     print(table.text)  // the text form CallbackTable(parsing:) reads
  ///
  /// - Parameters:
  ///   - header: The header's path.
  ///   - record: The struct: its tag (`fuse_operations`, `struct fuse_operations`) or a
  ///     typedef of it.
  /// - Returns: The members as clang sees them for this machine's target.
  /// - Throws: ``HeaderReaderError``: unions, bitfields, unnamed members, function pointers
  ///   with no prototype and types with no encoding are ``HeaderReaderError/Kind/unsupported``.
  public func table(header: String, struct record: String) throws(HeaderReaderError) -> HeaderTable {
    guard ClangSession.isIdentifier(ClangSession.tag(of: record)) else {
      throw HeaderReaderError(.invalidName, "'\(record)' is not a C struct tag or typedef name")
    }
    return try withSession(header: header, prefix: "blocksig-table") { session throws(HeaderReaderError) in
      let (spelling, fields) = try session.recordFields(named: record)
      let functions = try session.functionTypes(of: fields, in: spelling)
      let probed = try session.probe(fields, functions: functions, in: spelling)
      return try Self.table(record: record, header: header, fields: fields, functions: functions, probed: probed)
    }
  }

  /// Runs `body` with a clang session on `header`, in a temporary folder removed afterwards.
  func withSession<Result>(
    header: String, prefix: String, _ body: (ClangSession) throws(HeaderReaderError) -> Result
  ) throws(HeaderReaderError) -> Result {
    let headerPath = URL(fileURLWithPath: header).standardizedFileURL.path
    guard FileManager.default.isReadableFile(atPath: headerPath) else {
      throw HeaderReaderError(.unreadableHeader, "\(header): no such file, or not readable")
    }
    guard !headerPath.contains("\""), !headerPath.contains("\n") else {
      throw HeaderReaderError(
        .unreadableHeader, "\(header): a path with a quote or a line break cannot be included")
    }
    let compiler = try Self.executable(clang)
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("\(prefix)-\(UUID().uuidString)")
    do {
      try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    } catch {
      throw HeaderReaderError(.unavailable, "cannot make a temporary folder: \(error)")
    }
    defer { try? FileManager.default.removeItem(at: folder) }
    return try body(
      ClangSession(clang: compiler, arguments: arguments, folder: folder, header: headerPath, timeLimit: timeLimit))
  }

  /// The path of `name`: itself when it has a slash, else the first executable of that name
  /// in `PATH`.
  static func executable(_ name: String) throws(HeaderReaderError) -> String {
    let candidates =
      name.contains("/")
      ? [name]
      : (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":").map {
        "\($0)/\(name)"
      }
    guard let found = candidates.first(where: { FileManager.default.isExecutableFile(atPath: $0) }) else {
      let looked = name.contains("/") ? "" : " on PATH"
      throw HeaderReaderError(
        .compilerNotFound, "\(name): no such compiler\(looked) (give its path as HeaderReader(clang:))")
    }
    return found
  }
}
