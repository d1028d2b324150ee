import BlockSignature

extension HeaderReader {
  /// Reads the Objective-C protocol `name` from `header`: each method's selector, kind,
  /// `@required` or `@optional`, and method type encoding, for GCC's Objective-C runtime
  /// (`-fobjc-runtime=gcc` is added after ``arguments``).
  ///
  /// 1. clang's AST of the protocol lists its methods, in order, with their return and
  ///    parameter types as clang spells them, and the protocols it adopts;
  /// 2. a probe program, compiled by the same clang and run here, prints `@encode` of each
  ///    type; `MethodSignature(returnType:argumentTypes:form:model:)` composes the
  ///    method string from them in method form, with clang's offsets;
  /// 3. the IR clang writes for `@protocol(NAME)` says which methods are `@optional`, and holds
  ///    the method string clang itself writes: the composed one must be the same (clang's
  ///    `in`, `out`, `bycopy`, `oneway` … qualifiers, which `@encode` of a type lacks, are
  ///    taken from it), or nothing is given.
  ///
  /// GNUstep's headers need GNUstep's flags: ``gnustepArguments()`` gives them.
  ///
  ///     let reader = HeaderReader(arguments: HeaderReader.gnustepArguments() ?? [])
  ///     let delegate = try reader.objcProtocol(
  ///       header: "/usr/include/GNUstep/Foundation/NSXMLParser.h", named: "NSXMLParserDelegate")
  ///     delegate.methods.allSatisfy { !$0.isRequired }  // true: GNUstep's delegates are optional
  ///
  /// - Parameters:
  ///   - header: The header's path.
  ///   - name: The protocol's name.
  ///   - includingAdopted: Also list the methods of the protocols it adopts, and of theirs
  ///     (``ObjCProtocolDescription/Method/origin`` names the one declaring each), after its
  ///     own; a method declared again is listed once, where it comes first. Off by default:
  ///     a delegate's base class (`NSObject`) implements `<NSObject>`.
  /// - Returns: The protocol, its methods in declaration order.
  /// - Throws: ``HeaderReaderError``: ``HeaderReaderError/Kind/notFound`` when the header
  ///   declares no such protocol (or only declares it forward), ``HeaderReaderError/Kind/unsupported``
  ///   for a type with no encoding, ``HeaderReaderError/Kind/mismatch`` when clang's method
  ///   string and the composed one differ.
  public func objcProtocol(header: String, named name: String, includingAdopted: Bool = false)
    throws(HeaderReaderError) -> ObjCProtocolDescription
  {
    guard ClangSession.isIdentifier(name) else {
      throw HeaderReaderError(.invalidName, "'\(name)' is not an Objective-C protocol name")
    }
    return try withSession(header: header, prefix: "blocksig-objc") { session throws(HeaderReaderError) in
      let declared = try session.protocolDeclaration(named: name)
      var protocols = [declared]
      if includingAdopted {
        var pending = declared.adopted
        var seen: Set<String> = [name]
        while !pending.isEmpty {
          let next = pending.removeFirst()
          guard seen.insert(next).inserted else { continue }
          let adopted = try session.protocolDeclaration(named: next)
          protocols.append(adopted)
          pending += adopted.adopted
        }
      }
      let metadata = try session.protocolMetadata(referencing: name)
      var listed: [(method: ASTProtocol.Method, origin: String, written: IRProtocolMethod)] = []
      for declaring in protocols {
        for method in declaring.methods
        where !listed.contains(where: {
          $0.method.selector == method.selector && $0.method.isInstanceMethod == method.isInstanceMethod
        }) {
          guard
            let written = metadata[declaring.name]?.first(where: {
              $0.selector == method.selector && $0.isInstanceMethod == method.isInstanceMethod
            })
          else {
            throw HeaderReaderError(
              .probeFailed,
              "clang's IR for @protocol(\(name)) lists no method '\(method.isInstanceMethod ? "-" : "+")"
                + "\(method.selector)' of '\(declaring.name)'")
          }
          listed.append((method, declaring.name, written))
        }
      }
      var types: [String] = []
      for entry in listed {
        for type in [entry.method.returnType] + entry.method.parameterTypes where !types.contains(type) {
          types.append(type)
        }
      }
      let printed = try session.encodings(of: types)
      var encodings: [String: TypeEncoding] = [:]
      for (type, text) in zip(types, printed) {
        do {
          // clang's @encode of a vector or a _BitInt is empty.
          encodings[type] = text.isEmpty ? .unencodable : try TypeEncoding(parsing: text)
        } catch {
          throw HeaderReaderError(.probeFailed, "clang's @encode(\(type)) is '\(text)': \(error)")
        }
      }
      guard let model = DataModel.host else {
        throw HeaderReaderError(.unsupported, "this machine has no built-in data model")
      }
      var methods: [ObjCProtocolDescription.Method] = []
      for entry in listed {
        methods.append(
          try Self.method(
            entry.method, origin: entry.origin, written: entry.written, encodings: encodings, model: model))
      }
      return ObjCProtocolDescription(name: name, adoptedProtocols: declared.adopted, methods: methods)
    }
  }

  /// A method's description: its signature composed from `@encode` of its types, checked
  /// against the method string clang wrote.
  static func method(
    _ method: ASTProtocol.Method, origin: String, written: IRProtocolMethod, encodings: [String: TypeEncoding],
    model: DataModel
  ) throws(HeaderReaderError) -> ObjCProtocolDescription.Method {
    let label = "\(method.isInstanceMethod ? "-" : "+")\(method.selector)"
    let spelled = [method.returnType] + method.parameterTypes
    let types = spelled.compactMap { encodings[$0] }
    if let index = types.firstIndex(of: .unencodable) ?? (types.count == spelled.count ? nil : types.count) {
      throw HeaderReaderError(
        .unsupported,
        "method '\(label)': clang writes no encoding for '\(spelled[index])' (a vector or _BitInt)")
    }
    let clangs: SignatureEncoding
    do {
      clangs = try SignatureEncoding(parsing: written.types)
    } catch {
      throw HeaderReaderError(.probeFailed, "method '\(label)': clang wrote '\(written.types)': \(error)")
    }
    guard clangs.kind == .method, clangs.arguments.count == types.count + 1 else {
      throw HeaderReaderError(
        .mismatch, "method '\(label)': clang wrote '\(written.types)' for \(method.parameterTypes.count) parameters")
    }
    let writtenTypes = [clangs.returnType] + clangs.arguments.dropFirst(2).map(\.type)
    let qualified = zip(types, writtenTypes).map { type, written in withMethodQualifiers(type, of: written) }
    let signature: MethodSignature
    do {
      signature = try MethodSignature(
        returnType: qualified[0], argumentTypes: Array(qualified.dropFirst()), form: .method, model: model)
    } catch {
      throw HeaderReaderError(.mismatch, "method '\(label)': \(error)")
    }
    guard signature.description == written.types else {
      throw HeaderReaderError(
        .mismatch,
        "method '\(label)': clang writes '\(written.types)', the @encode of its types make '\(signature)'")
    }
    return ObjCProtocolDescription.Method(
      selector: method.selector, isInstanceMethod: method.isInstanceMethod, isRequired: written.isRequired,
      signature: signature, isVariadic: method.isVariadic, origin: origin, returnType: method.returnType,
      parameterTypes: method.parameterTypes)
  }

  /// `type` (`@encode` of a parameter's type) with the qualifiers clang wrote in front of it in
  /// the method string (`written`), in clang's order: those are the type's own (`r`, const)
  /// and the method's (`n`, `N`, `o`, `O`, `R`, `V`), which `@encode` of a type does not have.
  /// Unchanged when `written`'s qualifiers are not `type`'s plus method qualifiers.
  static func withMethodQualifiers(_ type: TypeEncoding, of written: TypeEncoding) -> TypeEncoding {
    let (writtenQualifiers, _) = qualifiers(of: written)
    let (ownQualifiers, unqualified) = qualifiers(of: type)
    guard writtenQualifiers.filter({ $0 == .const }) == ownQualifiers.filter({ $0 == .const }),
      ownQualifiers.allSatisfy({ $0 == .const })
    else { return type }
    return writtenQualifiers.reversed().reduce(unqualified) { .qualified($1, $0) }
  }

  /// The qualifiers in front of `type`, outermost first, and the type inside them.
  static func qualifiers(of type: TypeEncoding) -> ([TypeQualifier], TypeEncoding) {
    var qualifiers: [TypeQualifier] = []
    var current = type
    while case .qualified(let qualifier, let inner) = current {
      qualifiers.append(qualifier)
      current = inner
    }
    return (qualifiers, current)
  }
}
