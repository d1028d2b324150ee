// Printing: `description` gives back the parsed bytes exactly; `debugDescription` is a tree.

extension TypeEncoding: CustomStringConvertible, CustomDebugStringConvertible {
  /// The canonical encoding; parsing it gives back an equal value.
  ///
  ///     try TypeEncoding(parsing: "^{S=i}").description  // "^{S=i}"
  public var description: String {
    var output = ""
    write(to: &output)
    return output
  }

  /// Appends the encoding to `output` without intermediate strings.
  public func write(to output: inout String) {
    switch self {
    case .primitive(let code):
      output.unicodeScalars.append(Unicode.Scalar(code.rawValue))
    case .object(let className):
      output += "@"
      if let className {
        output += "\""
        output += className
        output += "\""
      }
    case .block(let signature):
      output += "@?"
      if let signature {
        output += "<"
        for type in signature { type.write(to: &output) }
        output += ">"
      }
    case .pointer(let pointee):
      output += "^"
      pointee.write(to: &output)
    case .array(let count, let element):
      output += "["
      output += String(count)
      element.write(to: &output)
      output += "]"
    case .structure(let name, let fields):
      Self.writeAggregate(open: "{", close: "}", name: name, fields: fields, to: &output)
    case .union(let name, let fields):
      Self.writeAggregate(open: "(", close: ")", name: name, fields: fields, to: &output)
    case .bitfield(let bitfield):
      output += "b"
      if let offset = bitfield.bitOffset, let type = bitfield.declaredType {
        output += String(offset)
        output.unicodeScalars.append(Unicode.Scalar(type.rawValue))
      }
      output += String(bitfield.width)
    case .complex(let inner):
      output += "j"
      inner.write(to: &output)
    case .atomic(let inner):
      output += "A"
      inner.write(to: &output)
    case .qualified(let qualifier, let inner):
      output.unicodeScalars.append(Unicode.Scalar(qualifier.rawValue))
      inner.write(to: &output)
    case .unencodable:
      break
    }
  }

  private static func writeAggregate(
    open: String, close: String, name: String, fields: [Field]?, to output: inout String
  ) {
    output += open
    output += name
    if let fields {
      output += "="
      for field in fields {
        if let name = field.name {
          output += "\""
          output += name
          output += "\""
        }
        field.type.write(to: &output)
      }
    }
    output += close
  }

  /// An indented tree of the encoding, one node per line.
  public var debugDescription: String {
    var output = ""
    writeTree(indent: 0, label: nil, to: &output)
    return output
  }

  private func writeTree(indent: Int, label: String?, to output: inout String) {
    output += String(repeating: "  ", count: indent)
    if let label { output += label + ": " }
    switch self {
    case .primitive(let code): output += "primitive \(code) '\(self)'\n"
    case .object(let name): output += name.map { "object \"\($0)\"\n" } ?? "object\n"
    case .block(let signature):
      output += "block\n"
      for (index, type) in (signature ?? []).enumerated() {
        type.writeTree(indent: indent + 1, label: index == 0 ? "return" : "parameter", to: &output)
      }
    case .pointer(let pointee):
      output += "pointer\n"
      pointee.writeTree(indent: indent + 1, label: nil, to: &output)
    case .array(let count, let element):
      output += "array [\(count)]\n"
      element.writeTree(indent: indent + 1, label: nil, to: &output)
    case .structure(let name, let fields), .union(let name, let fields):
      if case .structure = self { output += "struct \(name)" } else { output += "union \(name)" }
      output += fields == nil ? " (fields not encoded)\n" : "\n"
      for field in fields ?? [] {
        field.type.writeTree(indent: indent + 1, label: field.name, to: &output)
      }
    case .bitfield(let bitfield):
      output += "bitfield width \(bitfield.width)"
      if let offset = bitfield.bitOffset, let type = bitfield.declaredType {
        output += " at bit \(offset) of \(type)"
      }
      output += "\n"
    case .complex(let inner):
      output += "complex\n"
      inner.writeTree(indent: indent + 1, label: nil, to: &output)
    case .atomic(let inner):
      output += "atomic\n"
      inner.writeTree(indent: indent + 1, label: nil, to: &output)
    case .qualified(let qualifier, let inner):
      output += "\(qualifier.keyword)\n"
      inner.writeTree(indent: indent + 1, label: nil, to: &output)
    case .unencodable:
      output += "unencodable\n"
    }
  }
}

extension TypeEncoding: Codable {
  /// Decodes from the encoding string.
  public init(from decoder: any Decoder) throws {
    let container = try decoder.singleValueContainer()
    self = try TypeEncoding(parsing: try container.decode(String.self))
  }

  /// Encodes as the encoding string.
  public func encode(to encoder: any Encoder) throws {
    var container = encoder.singleValueContainer()
    try container.encode(description)
  }
}

extension TypeEncoding {
  /// The encoding as a message shows it: in single quotes when it holds a space (`' '` is
  /// `_Float16`, `__bf16` or `__float128`), which would be invisible or cut short otherwise.
  var visibleDescription: String {
    let text = description
    return text.isEmpty || text.contains(" ") ? "'\(text)'" : text
  }
}
