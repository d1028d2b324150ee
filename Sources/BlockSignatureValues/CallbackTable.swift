import BlockSignature

/// A C struct of callbacks (a "protocol" in BlocksKit's terms): each member a function pointer
/// with a C function signature, or a plain data member, laid out by the layout engine as clang
/// lays the struct out on `model`.
///
///     let handler = try CallbackTable(name: "ops", members: [
///       .function("add", signature: "i^vii"),   // int (*add)(void *context, int, int)
///       .data("version", encoding: "I"),        // unsigned int version
///     ])
///     handler.member(named: "version")?.offset  // 8
///
/// A function member's signature lists the C function's parameters exactly, in function form
/// (`v^vr*i`, offsets optional) or any other form taken literally. A member whose first
/// parameter is `void *` (`^v`) takes the context: a delegate passes its own there, and hands
/// the real delegate's to the real delegate.
public struct CallbackTable: Hashable, Sendable {
  /// One member of the table.
  public struct Member: Hashable, Sendable {
    /// What a member holds.
    public enum Kind: Hashable, Sendable {
      /// A function pointer with this signature (function form, clang's offsets).
      case function(MethodSignature)
      /// Data of this type.
      case data(TypeEncoding)
    }

    /// The member's name.
    public var name: String
    /// A function pointer or data.
    public var kind: Kind
    /// Its byte offset in the struct.
    public var offset: Int
    /// Its size in bytes.
    public var size: Int

    /// The function's signature, for a function member.
    public var signature: MethodSignature? {
      if case .function(let signature) = kind { signature } else { nil }
    }

    /// Whether the function's first parameter is the context (`void *`).
    public var takesContext: Bool {
      guard let first = signature?.encoding.arguments.first?.type.unqualified else { return false }
      return first == .pointer(.primitive(.void))
    }
  }

  /// How a member is declared: a name and a function signature or a data encoding.
  public struct Declaration: Hashable, Sendable {
    var name: String
    var text: String
    var isFunction: Bool

    /// A function pointer member with a C function signature (`v^vr*i`).
    public static func function(_ name: String, signature: String) -> Declaration {
      Declaration(name: name, text: signature, isFunction: true)
    }

    /// A data member of the type `encoding` (`I` for `unsigned int`).
    public static func data(_ name: String, encoding: String) -> Declaration {
      Declaration(name: name, text: encoding, isFunction: false)
    }
  }

  /// The struct's name (for messages).
  public let name: String
  /// The members in declaration order.
  public let members: [Member]
  /// The struct's size in bytes.
  public let size: Int
  /// The struct's alignment in bytes.
  public let alignment: Int
  /// The data model the layout is for (the host's, for a table C uses here).
  public let model: DataModel

  /// Describes a table from its members, in order.
  ///
  /// - Throws: ``DelegateError``: a name used twice, a signature or encoding that does not
  ///   parse, a layout the encodings do not decide.
  public init(name: String, members declarations: [Declaration], model: DataModel? = .host) throws(DelegateError) {
    guard let model else {
      throw DelegateError(kind: .undecidableLayout, message: "no data model describes this machine")
    }
    var kinds: [Member.Kind] = []
    var seen = Set<String>()
    for declaration in declarations {
      guard seen.insert(declaration.name).inserted else {
        throw DelegateError(kind: .invalidDescription, member: declaration.name, message: "the name is used twice")
      }
      kinds.append(try Self.kind(of: declaration, model: model))
    }
    let fields = kinds.map { kind -> TypeEncoding in
      switch kind {
      case .function: .pointer(.primitive(.unknown))
      case .data(let type): type
      }
    }
    let layout: TypeLayout
    do {
      layout = try TypeEncoding.structure(name: name, fields: fields.map { TypeEncoding.Field(type: $0) }).layout(
        for: model)
    } catch {
      throw DelegateError(kind: .undecidableLayout, message: "the struct cannot be laid out: \(error)")
    }
    guard layout.caveats.isEmpty else {
      throw DelegateError(
        kind: .undecidableLayout, message: "the encodings do not decide the layout: \(layout.caveats)")
    }
    var members: [Member] = []
    for (index, (declaration, kind)) in zip(declarations, kinds).enumerated() {
      let end = index + 1 < layout.offsets.count ? layout.offsets[index + 1] : layout.size
      let size: Int
      switch kind {
      case .function: size = model.pointerSize
      case .data(let type): size = (try? type.layout(for: model).size) ?? end - layout.offsets[index]
      }
      members.append(Member(name: declaration.name, kind: kind, offset: layout.offsets[index], size: size))
    }
    self.name = name
    self.members = members
    self.size = layout.size
    self.alignment = layout.alignment
    self.model = model
  }

  /// The member called `name`.
  public func member(named name: String) -> Member? {
    members.first { $0.name == name }
  }

  private static func kind(of declaration: Declaration, model: DataModel) throws(DelegateError) -> Member.Kind {
    if declaration.isFunction {
      do {
        let parsed = try MethodSignature(parsing: declaration.text, model: model)
        return .function(
          try MethodSignature(
            returnType: parsed.encoding.returnType, argumentTypes: parsed.encoding.arguments.map(\.type), form: .types,
            model: model))
      } catch {
        throw DelegateError(kind: .invalidDescription, member: declaration.name, message: "the signature: \(error)")
      }
    }
    do {
      return .data(try TypeEncoding(parsing: declaration.text))
    } catch {
      throw DelegateError(kind: .invalidDescription, member: declaration.name, message: "the encoding: \(error)")
    }
  }
}
