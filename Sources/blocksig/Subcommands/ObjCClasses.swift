import ArgumentParser
import BlockSignature
import BlockSignatureObjC
import BlockSignatureRuntime
import Foundation

extension BlockSig.ObjC {
  /// `blocksig objc classes`: a class-dump of the Objective-C classes a library defines, on
  /// GCC's runtime, with each method's type encoding and its C and Swift declarations.
  struct ClassesCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
      commandName: "classes",
      abstract: "List the Objective-C classes a library defines, with their methods' types.",
      discussion: """
        The library — a path, or a bare name searched for as dlopen searches \
        (LD_LIBRARY_PATH, /etc/ld.so.cache, the default folders) — is checked, then loaded \
        in a child process of blocksig's (its constructors run there: a crash is an error, \
        exit 70; load only libraries you trust), and GCC's Objective-C runtime, as Debian's \
        GNUstep uses it, lists the classes whose definitions lie in it. Each class is printed as an @interface: its superclass and \
        protocols, its instance variables (type encoding and offset), then its class (+) and \
        instance (-) methods, each with the type encoding the compiler wrote and the \
        declaration in C types. --swift adds the Swift type of each method's implementation \
        (self, _cmd, then the arguments). --class keeps the classes named (repeatable).

        --json prints {"library", "target", "classes": [{"name", "superclass", "protocols", \
        "instanceVariables": [{"name", "type", "offset"}], "methods": [{"selector", "kind" \
        (instance or class), "types", "declaration", "swift"}]}]}; a method whose types do \
        not parse has "error" in place of the declarations.

        Examples:
          blocksig objc classes libgnustep-base.so --class NSString
          blocksig objc classes ./libShapes.so --json

        Exit codes: 0 the classes were listed; 64 usage error; 65 a class named by --class \
        is not defined by the library; 66 the library cannot be found, read or loaded (a \
        damaged file: `FILE: error: …` says what is out of range); 70 the library's code \
        crashed; 130 interrupted.
        """
    )

    @Argument(help: "The library: a path, or a bare name searched for as dlopen does.")
    var library: String

    @Option(name: .customLong("class"), help: ArgumentHelp("A class to list (all by default).", valueName: "name"))
    var classNames: [String] = []

    @Flag(help: "Also print the Swift type of each method's implementation.")
    var swift = false

    @OptionGroup var jsonOption: JSONOption

    @OptionGroup var diagnostics: DiagnosticOptions

    func run() throws {
      try LibraryCodeRun.run { child in try listClasses(marking: child) }
    }

    /// Loads the library and prints its classes, in the child process of a ``LibraryCodeRun``.
    func listClasses(marking child: ContainedRun) throws {
      let loaded: ObjCLibrary
      do {
        let path = try LoadedLibrary.checkedFile(for: library)
        child.mark("loading \(path) (the dynamic linker and the library's constructors)")
        loaded = try ObjCLibrary(loading: path)
      } catch let error as LoadedLibraryError {
        throw LibraryBlock.Failure(error).report()
      } catch {
        throw Diagnostics.fail(ExitStatus.noInput, "\(error)")
      }
      child.mark("reading the Objective-C classes of \(loaded.path)")
      var classes = loaded.classes
      if !classNames.isEmpty {
        let names = Set(classNames)
        let missing = classNames.filter { name in !classes.contains { $0.name == name } }
        guard missing.isEmpty else {
          throw Diagnostics.fail(
            ExitStatus.dataError, "\(loaded.path) defines no class called \(missing.joined(separator: ", "))")
        }
        classes = classes.filter { names.contains($0.name) }
      }
      let report = ObjCClassesReportV1(library: loaded.path, classes: classes)
      if jsonOption.json {
        try JSONOutput.print(report)
      } else {
        print("# \(loaded.path): \(report.classes.count) \(report.classes.count == 1 ? "class" : "classes")")
        for entry in report.classes { print(entry.text(swift: swift)) }
      }
    }
  }
}
