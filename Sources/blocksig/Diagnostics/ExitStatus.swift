/// The exit codes of every subcommand (sysexits.h values where one fits).
enum ExitStatus {
  /// A check or a dump found errors.
  static let findings: Int32 = 1
  /// The command line is wrong (EX_USAGE).
  static let usage: Int32 = 64
  /// The input is malformed, is not a block, or does not fit (EX_DATAERR).
  static let dataError: Int32 = 65
  /// A file, library, symbol or process cannot be read (EX_NOINPUT).
  static let noInput: Int32 = 66
  /// Code of a library that blocksig ran — its constructors, the function that returns the
  /// block, the block — crashed (EX_SOFTWARE); blocksig itself did not.
  static let crashed: Int32 = 70
  /// Interrupted (128 + SIGINT, as a shell reports it).
  static let interrupted: Int32 = 130
}
