import BlockSignature
import BlockSignatureFFI
import BlockSignatureSystem
import CBlockSignatureObjC

/// The class behind the dynamic delegates of one protocol and method list: a subclass of
/// GNUstep's `NSProxy` made at run time, with one libffi closure per method and an instance
/// variable that leads each instance to its own ``DelegateState``. Made once, kept for the
/// process's life (GCC's runtime cannot remove a registered class).
final class DelegateClass: @unchecked Sendable {
  /// A protocol method and what its closure calls with.
  struct Method {
    let description: ObjCMethodDescription
    let interface: CallInterface
  }

  let objcClass: ObjCClass
  let methods: [Method]
  /// Method index by selector name.
  let index: [String: Int]
  /// Where an instance keeps its state's address.
  private(set) var stateOffset = 0
  private var closures: [FFIClosure] = []
  /// What each closure's user data points at: the class and the method's index.
  private var entries: [Entry] = []

  /// A method's closure's way back to its class and method.
  final class Entry {
    unowned let owner: DelegateClass
    let index: Int

    init(owner: DelegateClass, index: Int) {
      self.owner = owner
      self.index = index
    }
  }

  static let stateVariable = "_blockSignatureDelegateState"
  private static let classes = Locked<[String: DelegateClass]>([:])

  /// The class for `protocolName` and `methods`, made on first use.
  static func shared(protocolName: String, methods: [ObjCMethodDescription]) throws(ObjCError) -> DelegateClass {
    let key = protocolName + "\n" + methods.map(\.description).joined(separator: "\n")
    return try classes.withLock { classes throws(ObjCError) in
      if let known = classes[key] { return known }
      let made = try DelegateClass(protocolName: protocolName, methods: methods, serial: classes.count)
      classes[key] = made
      return made
    }
  }

  private init(protocolName: String, methods: [ObjCMethodDescription], serial: Int) throws(ObjCError) {
    try ObjCRuntime.loadFoundation()
    let root = try ObjCClass(named: "NSProxy")
    let builder = try ObjCClassBuilder(name: "BlockSignatureDelegate_\(protocolName)_\(serial)", superclass: root)
    try builder.addInstanceVariable(Self.stateVariable, types: "^v")
    if let adopted = try? ObjCProtocol(named: protocolName) { try builder.addProtocol(adopted) }
    var prepared: [Method] = []
    var index: [String: Int] = [:]
    for description in methods where description.isInstanceMethod {
      guard index[description.selector.name] == nil else {
        throw ObjCError(kind: .invalidSignature, message: "\(protocolName) lists \(description.selector) twice")
      }
      do {
        let interface = try CallInterface(signature: description.signature, model: description.signature.model)
        index[description.selector.name] = prepared.count
        prepared.append(Method(description: description, interface: interface))
      } catch {
        throw ObjCError(kind: .invalidCall, message: "\(description): \(error)")
      }
    }
    self.methods = prepared
    self.index = index
    objcClass = builder.objcClass
    try addProtocolMethods()
    try addObjectMethods()
    try builder.register()
    guard let offset = objcClass.instanceVariableOffset(Self.stateVariable) else {
      throw ObjCError(kind: .refused, message: "\(objcClass) lost its state variable")
    }
    stateOffset = offset
  }

  /// One closure per protocol method; its user data is the method's ``Entry``.
  private func addProtocolMethods() throws(ObjCError) {
    for (position, method) in methods.enumerated() {
      let closure: FFIClosure
      let entry = Entry(owner: self, index: position)
      entries.append(entry)
      do {
        closure = try FFIClosure(cif: method.interface.cif, userData: Unmanaged.passUnretained(entry).toOpaque()) {
          _, result, arguments, userData in
          guard let result, let arguments, let userData else { return }
          let entry = Unmanaged<Entry>.fromOpaque(userData).takeUnretainedValue()
          DelegateState.respond(methodIndex: entry.index, of: entry.owner, result: result, arguments: arguments)
        }
      } catch {
        throw ObjCError(kind: .invalidCall, message: "\(method.description): \(error)")
      }
      closures.append(closure)
      let types = method.description.signature.description
      guard cbo_class_add_method(objcClass.pointer, method.description.selector.pointer, closure.code, types) != 0
      else { throw ObjCError(kind: .refused, message: "\(objcClass) refused \(method.description.selector)") }
    }
  }
}
