import BlockSignatureFFI

/// One call of a traced block: which block, through which invoke, with what, returning what,
/// on which thread. It prints as `blocksig trace` prints a call, as text or as a JSON line.
///
///     record.text      // "[thread 1] __hook_make_add_block_invoke  int (^)(int, int)  (3, 4) -> 7"
///     record.jsonLine  // {"serializationVersion":1,"event":"call","block":"0x…",…}
public struct BlockCallRecord: Hashable, Sendable {
  /// The block's address.
  public var block: UInt
  /// The block's own invoke function's address.
  public var invoke: UInt
  /// The invoke function's symbol, when its image has one (clang's `__main_block_invoke_2`).
  public var invokeSymbol: String?
  /// The block's signature; nil for a block without one, whose arguments are unknown.
  public var signature: String?
  /// The block's C type (`int (^)(int, int)`), when the signature renders as one.
  public var declaration: String?
  /// The arguments, one per parameter; nil when they are unknown (no signature).
  public var arguments: [CValue]?
  /// The result; nil for a `void` block.
  public var result: CValue?
  /// The calling thread's number: 1 for the first thread that called a traced block, and so on.
  public var thread: Int

  /// Makes a record of one call.
  ///
  /// - Parameters:
  ///   - block: the block's address.
  ///   - invoke: the block's own invoke function's address.
  ///   - invokeSymbol: the invoke function's symbol, if known.
  ///   - signature: the block's signature, nil when it has none.
  ///   - declaration: the block's C type, if known.
  ///   - arguments: one value per parameter, nil when they are unknown.
  ///   - result: the result, nil for `void`.
  ///   - thread: the calling thread's number.
  public init(
    block: UInt, invoke: UInt, invokeSymbol: String?, signature: String?, declaration: String?, arguments: [CValue]?,
    result: CValue?, thread: Int
  ) {
    self.block = block
    self.invoke = invoke
    self.invokeSymbol = invokeSymbol
    self.signature = signature
    self.declaration = declaration
    self.arguments = arguments
    self.result = result
    self.thread = thread
  }

  /// One readable line: the thread, the invoke's symbol (or address), the C type, the
  /// arguments and the result.
  public var text: String {
    let name = invokeSymbol ?? "0x" + String(invoke, radix: 16)
    guard let arguments, let signature else {
      return "[thread \(thread)] \(name)  (no signature)  (arguments unknown)"
    }
    let values = "(" + arguments.map(\.description).joined(separator: ", ") + ")"
    let returned = result.map { " -> \($0)" } ?? ""
    return "[thread \(thread)] \(name)  \(declaration ?? signature)  \(values)\(returned)"
  }

  /// One JSON object on one line, with the fields `blocksig trace --json` promises:
  /// `serializationVersion` (1), `event` (`"call"`), `block` and `invoke` (hexadecimal
  /// strings), `invokeSymbol` (or null), `signature`, `arguments` and `result` (in
  /// `blocksig call --json`'s value form; `result` null for `void`), `thread`; for a block
  /// without a signature, `signature`, `arguments` and `result` are null and `note` says why.
  public var jsonLine: String {
    let fields: [(String, String)] = [
      ("serializationVersion", "1"),
      ("event", #""call""#),
      ("block", Self.quoted("0x" + String(block, radix: 16))),
      ("invoke", Self.quoted("0x" + String(invoke, radix: 16))),
      ("invokeSymbol", invokeSymbol.map(Self.quoted) ?? "null"),
      ("signature", signature.map(Self.quoted) ?? "null"),
      ("arguments", arguments.map { "[" + $0.map(\.jsonText).joined(separator: ",") + "]" } ?? "null"),
      ("result", result?.jsonText ?? "null"),
      ("thread", String(thread)),
    ]
    let note =
      signature == nil
      ? [("note", Self.quoted("the block has no signature: its arguments and result are unknown"))] : []
    return "{" + (fields + note).map { "\(Self.quoted($0.0)):\($0.1)" }.joined(separator: ",") + "}"
  }

  /// `text` as a JSON string, as every JSON document of the project writes one.
  static func quoted(_ text: String) -> String { JSONValue.quoted(text) }
}
