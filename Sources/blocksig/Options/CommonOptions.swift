// The options several commands share, declared once: `--json` and `--target`.

import ArgumentParser
import BlockSignature

/// `--json`: print JSON instead of text (each command's overview gives its shape).
struct JSONOption: ParsableArguments {
  @Flag(help: "Print JSON instead of text (the overview gives the shape).")
  var json = false
}

/// `--target`: the data model sizes, alignments and argument places are computed for.
struct TargetOption: ParsableArguments {
  @Option(help: "The data model: sizes, alignments and calling convention.")
  var target: DataModel = .x86_64SysV
}

extension DataModel: ExpressibleByArgument {
  /// A built-in model by its name (`x86_64-linux`, `aarch64-linux`, …).
  public init?(argument: String) {
    self.init(named: argument)
  }

  public static var allValueStrings: [String] { allBuiltIn.map(\.name) }

  public var defaultValueDescription: String { name }
}
