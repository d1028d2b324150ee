import BlockSignature
import CBlockSignatureObjC

/// A method as the runtime holds it: its selector, its type encoding and its implementation.
///
///     let method = try ObjCClass(named: "NSString").instanceMethod("length")!
///     method.typeEncoding  // Q16@0:8
public struct ObjCMethod: Hashable, @unchecked Sendable, CustomStringConvertible {
  /// The runtime's `Method`.
  public let pointer: UnsafeRawPointer

  /// Wraps a runtime `Method`.
  public init(_ pointer: UnsafeRawPointer) {
    self.pointer = pointer
  }

  /// The selector.
  public var selector: Selector { Selector(cbo_method_get_name(pointer)) }

  /// The type encoding the compiler wrote for the method (empty when the runtime has none).
  public var typeEncoding: String { cbo_method_get_type_encoding(pointer).map { String(cString: $0) } ?? "" }

  /// The type encoding parsed and laid out for this machine.
  ///
  /// - Throws: ``ObjCError/Kind/invalidSignature`` when it does not parse.
  public func signature() throws(ObjCError) -> MethodSignature {
    try ObjCTypes.methodSignature(typeEncoding, what: "the runtime's types of \(selector)")
  }

  /// The implementation (`IMP`).
  public var implementation: UnsafeRawPointer { cbo_method_get_implementation(pointer) }

  /// `selector typeEncoding`.
  public var description: String { "\(selector) \(typeEncoding)" }
}

/// Parsing and checking method types for this machine.
enum ObjCTypes {
  /// `text` parsed as a method signature (`@0:8` first) on the host.
  static func methodSignature(_ text: String, what: @autoclosure () -> String) throws(ObjCError) -> MethodSignature {
    guard let model = DataModel.host else {
      throw ObjCError(kind: .invalidSignature, message: "no data model describes this machine")
    }
    let signature: MethodSignature
    do {
      signature = try MethodSignature(parsing: text, model: model)
    } catch {
      throw ObjCError(kind: .invalidSignature, message: "\(what()) \(text): \(error)")
    }
    guard signature.kind == .method else {
      throw ObjCError(
        kind: .invalidSignature, message: "\(what()) \(text) is not a method signature (self and _cmd, @ and :, first)")
    }
    return signature
  }

  /// Throws ``ObjCError/Kind/incompatibleSignature`` unless `candidate` fits `expected` at
  /// `level`.
  static func requireFit(
    _ candidate: MethodSignature, to expected: MethodSignature, level: CompatibilityLevel, what: String
  ) throws(ObjCError) {
    guard
      let misfit = CompatibilityChecker.misfit(
        of: candidate.encoding, to: expected.encoding, level: level, model: expected.model)
    else { return }
    throw ObjCError(
      kind: .incompatibleSignature,
      message: "\(what): \(candidate) does not fit \(expected) at level \(level): \(misfit.firstError)",
      diagnostics: misfit.diagnostics)
  }
}
