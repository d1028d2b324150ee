import BlockSignatureRuntime
import BlockSignatureSystem
import CBlockSignatureObjC

/// A shared library loaded into the process (`dlopen`), and the Objective-C classes it
/// defines: what a class-dump of a GNUstep library starts from.
///
///     let base = try ObjCLibrary(loading: "libgnustep-base.so")
///     base.classes.count  // over 700
///
/// The library stays loaded for the life of the process.
public struct ObjCLibrary: Hashable, Sendable {
  /// The file the library was loaded from.
  public let path: String

  /// Loads `library` — a path, or a bare name searched for as `dlopen` does — with its symbols
  /// global, so its classes join the runtime. The file is checked before `dlopen` sees it, as
  /// `LoadedLibrary(loading:sharingSymbols:)` (BlockSignatureRuntime) checks it.
  ///
  /// - Throws: ``ObjCError/Kind/refused``: no such library, a file that fails the check (what
  ///   is wrong and where), or the dynamic linker's reason.
  public init(loading library: String) throws(ObjCError) {
    do {
      path = try LoadedLibrary(loading: library, sharingSymbols: true).path
    } catch {
      throw ObjCError(kind: .refused, message: error.message)
    }
  }

  /// The classes whose definitions lie in this library, sorted by name (classes made at run
  /// time, and those of other libraries, left out).
  public var classes: [ObjCClass] {
    let resolved = Self.resolved(path)
    return ObjCClass.all.filter { objcClass in
      guard let image = cbo_image_path(objcClass.pointer) else { return false }
      return Self.resolved(String(cString: image)) == resolved
    }.sorted { $0.name < $1.name }
  }

  /// `path` with symbolic links resolved (the linker may name a file by a link).
  private static func resolved(_ path: String) -> String {
    system_realpath(path) ?? path
  }
}

/// An instance variable a class declares.
public struct ObjCInstanceVariable: Hashable, Sendable {
  /// Its name.
  public var name: String
  /// Its type encoding.
  public var typeEncoding: String
  /// Its byte offset in an instance.
  public var offset: Int
}

extension ObjCClass {
  /// The instance variables the class itself declares, in order.
  public var instanceVariables: [ObjCInstanceVariable] {
    let count = Int(cbo_class_instance_variables(pointer, nil, 0))
    guard count > 0 else { return [] }
    var list = [CBO_InstanceVariable](repeating: CBO_InstanceVariable(), count: count)
    let filled = Int(cbo_class_instance_variables(pointer, &list, UInt32(count)))
    return list[0..<min(filled, count)].map { variable in
      ObjCInstanceVariable(
        name: variable.name.map { String(cString: $0) } ?? "",
        typeEncoding: variable.types.map { String(cString: $0) } ?? "",
        offset: variable.offset)
    }
  }
}
