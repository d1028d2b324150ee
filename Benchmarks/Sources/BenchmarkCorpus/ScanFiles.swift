// The binaries the scanner benchmark reads.

import Foundation

/// Large binaries of the Swift toolchain, for the scanner's MB/s and blocks/s.
public enum ScanFiles {
  /// `BLOCKSIG_SCAN_FILES` (colon-separated), or the toolchain's `libdispatch.so`,
  /// `libFoundation.so`, `libswiftCore.so` and `swift-frontend`, found from `swift` on `PATH`;
  /// only the files that exist.
  public static func paths() -> [String] {
    let environment = ProcessInfo.processInfo.environment
    if let list = environment["BLOCKSIG_SCAN_FILES"] {
      return list.split(separator: ":").map(String.init)
    }
    guard let toolchainBin = toolchainBinDirectory(path: environment["PATH"] ?? "") else { return [] }
    let usr = toolchainBin.deletingLastPathComponent()
    let lib = usr.appendingPathComponent("lib").appendingPathComponent("swift").appendingPathComponent("linux")
    let candidates = [
      lib.appendingPathComponent("libdispatch.so"),
      lib.appendingPathComponent("libFoundation.so"),
      lib.appendingPathComponent("libswiftCore.so"),
      toolchainBin.appendingPathComponent("swift-frontend"),
    ]
    return candidates.map(\.path).filter { FileManager.default.fileExists(atPath: $0) }
  }

  static func toolchainBinDirectory(path: String) -> URL? {
    for directory in path.split(separator: ":") {
      let swift = URL(fileURLWithPath: String(directory)).appendingPathComponent("swift")
      if FileManager.default.isExecutableFile(atPath: swift.path) {
        return swift.resolvingSymlinksInPath().deletingLastPathComponent()
      }
    }
    return nil
  }
}
