// The `blocksig decode --json` document (Schemas/blocksig-decode-1.schema.json).

import BlockSignature

/// The `--json` document, version 1.
struct DecodeReportV1: Codable {
  var serializationVersion: Int
  var input: String
  /// The library's kind: `block`, `method` or `types`.
  var kind: String
  /// `kind`, or `function` for a list of types with a frame length (a C function's form).
  var form: String
  var target: String
  var `return`: TypeReportV1
  var arguments: [ArgumentReportV1]
  var frameLength: Int
  var offsetsWritten: Bool
  var declaration: String
  var swiftType: String
  var notes: [String]
  /// Whether the return value goes to a buffer the caller passes (nil: not known, or a list of
  /// types), and where the pointer to it goes.
  var returnsInMemory: Bool?
  var returnBufferIn: String?
  /// Where the return value comes back: registers (`rax, rdx`), `memory`, `-` or `?`.
  var returnedIn: String?
  /// The bytes of stack the arguments take (nil: not known, or a list of types).
  var stackArgumentBytes: Int?
}

struct TypeReportV1: Codable {
  var encoding: String
  var size: Int
  var alignment: Int
  var declaration: String
  var exact: Bool
}

struct ArgumentReportV1: Codable {
  var encoding: String
  var size: Int
  var alignment: Int
  var offset: Int
  var slotSize: Int
  var declaration: String
  var exact: Bool
  /// Where a call puts the argument (nil for a list of types).
  var passedIn: PlaceReportV1?
}

/// An argument's place: registers by name and stack bytes from the first stack argument, as
/// `text` (`rdi`, `stack+8`, `r9, stack+0`); `known` is false where the encoding does not say.
struct PlaceReportV1: Codable {
  var text: String
  var known: Bool
  var registers: [String]
  var stackOffset: Int?
  var stackSize: Int?

  init(_ place: ArgumentPlacement.Place, model: DataModel) {
    text = place.locations(for: model)
    known = place != .unknown
    registers = place.registerNames(for: model)
    switch place {
    case .stack(let offset, let size), .split(_, _, let offset, let size): (stackOffset, stackSize) = (offset, size)
    case .registers, .none, .unknown: (stackOffset, stackSize) = (nil, nil)
    }
  }
}
