import BlockSignatureFFI
import TestSupport

/// Random block types and the C library that holds one block of each, with what the invocation
/// tests need to call each block from C and to check what the library's calls did.
///
/// For case `K` the library exports:
/// - `const void *caseK_block(void)`: the block (a global literal, or a heap copy capturing a salt);
/// - `void caseK_direct(void *out)`: calls the block from C with the case's arguments, stores the result;
/// - `void caseK_argI(void *out)`: stores argument `I` (1-based) as C lays it out;
/// - `uint64_t caseK_fold(const void *result)`: folds a result member by member;
/// - `void caseK_call(const void *block, void *out)` and `void caseK_callfn(const void *function,
///   void *out)`: call any block, or a C function with the block's parameters, with the case's
///   arguments, and store the result;
/// and, for every case, `bs_keep`/`bs_release` (`Block_copy`, `Block_release`) and
/// `bs_call_on_thread(call, block, out)`, which runs `call(block, out)` on a new thread.
/// A block folds every argument into a hash; it returns a value made from the hash, or, when
/// it returns `void`, stores the hash in `bs_last` (thread-local).
struct RandomCallProgram: Sendable {
  struct Case: Sendable {
    var returnType: RandomCallType?
    var parameters: [RandomCallType]
    var arguments: [CValue]
    var literals: [String]
    var capturesSalt: Bool
  }

  var cases: [Case] = []
  private var records: [String] = []
  private var random: SeededRandom

  init(seed: UInt64, count: Int) {
    random = SeededRandom(seed: seed)
    for _ in 0..<count { cases.append(makeCase()) }
  }

  private static let scalars: [RandomCallType] = [
    .integer(bits: 8, isSigned: true, spelling: "signed char"),
    .integer(bits: 8, isSigned: false, spelling: "unsigned char"),
    .integer(bits: 16, isSigned: true, spelling: "short"),
    .integer(bits: 16, isSigned: false, spelling: "unsigned short"),
    .integer(bits: 32, isSigned: true, spelling: "int"),
    .integer(bits: 32, isSigned: false, spelling: "unsigned int"),
    .integer(bits: 64, isSigned: true, spelling: "long"),
    .integer(bits: 64, isSigned: false, spelling: "unsigned long long"),
    .integer(bits: 128, isSigned: true, spelling: "__int128"),
    .integer(bits: 128, isSigned: false, spelling: "unsigned __int128"),
    .integer(bits: 1, isSigned: false, spelling: "_Bool"),
    .float, .double, .longDouble,
    .complex(.float), .complex(.double), .complex(.longDouble),
    .pointer, .cString,
  ]

  private mutating func scalar(inUnion: Bool) -> RandomCallType {
    while true {
      let type = Self.scalars.randomElement(using: &random)!
      // A union mixing long double with other members goes in memory in 16 bytes, which
      // libffi cannot be told as a return value: BlockInvocation refuses it (tested apart).
      if inUnion, case .longDouble = type { continue }
      if inUnion, case .complex(.longDouble) = type { continue }
      return type
    }
  }

  private mutating func record(depth: Int) -> RandomCallType {
    let isUnion = Int.random(in: 0..<5, using: &random) == 0
    let count = Int.random(in: 1...4, using: &random)
    var members: [RandomCallType] = []
    for _ in 0..<count {
      switch Int.random(in: 0..<8, using: &random) {
      case 0 where depth == 0 && !isUnion: members.append(record(depth: 1))
      case 1: members.append(.array(count: Int.random(in: 1...4, using: &random), element: scalar(inUnion: isUnion)))
      default: members.append(scalar(inUnion: isUnion))
      }
    }
    let name = "R\(records.count)"
    let body = members.enumerated().map { "  " + $1.member($0) }.joined(separator: "\n")
    records.append("\(isUnion ? "union" : "struct") \(name) {\n\(body)\n};")
    return .record(name: name, members: members, isUnion: isUnion)
  }

  private mutating func anyType() -> RandomCallType {
    Int.random(in: 0..<3, using: &random) == 0 ? record(depth: 0) : scalar(inUnion: false)
  }

  private mutating func makeCase() -> Case {
    let returnType: RandomCallType? = Int.random(in: 0..<6, using: &random) == 0 ? nil : anyType()
    // Sometimes enough arguments to run out of registers, so later ones go on the stack.
    let count = Int.random(in: 0..<5, using: &random) == 0 ? 10 : Int.random(in: 0...5, using: &random)
    let parameters = (0..<count).map { _ in anyType() }
    let values = parameters.map { $0.randomValue(&random) }
    return Case(
      returnType: returnType, parameters: parameters, arguments: values.map(\.value), literals: values.map(\.literal),
      capturesSalt: Bool.random(using: &random))
  }

  /// The C source of the library.
  var source: String {
    var lines = [
      "#include <stdint.h>", "#include <string.h>", "#include <Block.h>", "#include <pthread.h>",
      // One per thread: the calling and making suites run side by side on one library, and
      // each reads what its own call stored (dlsym gives the calling thread's copy).
      "_Thread_local uint64_t bs_last;",
      "const void *bs_keep(const void *b) { return Block_copy(b); }",
      "void bs_release(const void *b) { Block_release(b); }",
      "struct bs_job { void (*call)(const void *, void *); const void *block; void *out; };",
      "static void *bs_run(void *p) { struct bs_job *j = p; j->call(j->block, j->out); return 0; }",
      "int bs_call_on_thread(void (*call)(const void *, void *), const void *block, void *out) { struct bs_job j = { call, block, out }; pthread_t t; if (pthread_create(&t, 0, bs_run, &j)) return -1; return pthread_join(t, 0); }",
      "static const char *bs_strings[4] = {\"alpha\", \"beta\", \"\", \"delta epsilon\"};",
      "static uint64_t bs_mix(uint64_t h, uint64_t v) { return (h ^ v) * 1099511628211ULL + 0x9e3779b97f4a7c15ULL; }",
      "static uint64_t bs_mix_bytes(uint64_t h, const void *p, int n) { const unsigned char *b = p; for (int i = 0; i < n; i++) h = bs_mix(h, b[i]); return h; }",
      "static uint64_t bs_mix_string(uint64_t h, const char *s) { if (!s) return bs_mix(h, 0xdead); while (*s) h = bs_mix(h, (unsigned char)*s++); return h; }",
    ]
    lines += records
    for (index, testCase) in cases.enumerated() { lines += Self.emit(testCase, index: index) }
    return lines.joined(separator: "\n") + "\n"
  }

  private static func emit(_ testCase: Case, index: Int) -> [String] {
    let name = "case\(index)"
    let returnSpelling = testCase.returnType?.spelling ?? "void"
    let parameters = testCase.parameters.enumerated().map { "\($1.spelling) a\($0 + 1)" }
    let parameterList = parameters.isEmpty ? "void" : parameters.joined(separator: ", ")
    var body = ["uint64_t h = \(testCase.capturesSalt ? "salt" : "1469598103934665603ULL");"]
    for (position, parameter) in testCase.parameters.enumerated() { body += parameter.fold("a\(position + 1)") }
    if let returnType = testCase.returnType {
      body += ["\(returnSpelling) r;", "memset(&r, 0, sizeof r);"] + returnType.make("r") + ["return r;"]
    } else {
      body += ["bs_last = h;"]
    }
    let literal = "^\(returnSpelling) (\(parameterList)) { \(body.joined(separator: " ")) }"
    var lines = ["typedef \(returnSpelling) (^\(name)_t)(\(parameterList));"]
    if testCase.capturesSalt {
      lines += [
        "static \(name)_t \(name)_copy;",
        "const void *\(name)_block(void) { if (!\(name)_copy) { uint64_t salt = \(index + 7)ULL; \(name)_copy = Block_copy(\(literal)); } return \(name)_copy; }",
      ]
    } else {
      lines += ["const void *\(name)_block(void) { return \(literal); }"]
    }
    let arguments = testCase.literals.joined(separator: ", ")
    let call = "((\(name)_t)\(name)_block())(\(arguments))"
    let callBlock = "((\(name)_t)block)(\(arguments))"
    let callFunction = "((\(returnSpelling) (*)(\(parameterList)))function)(\(arguments))"
    if testCase.returnType != nil {
      lines += [
        "void \(name)_call(const void *block, void *out) { \(returnSpelling) r = \(callBlock); memcpy(out, &r, sizeof r); }",
        "void \(name)_callfn(const void *function, void *out) { \(returnSpelling) r = \(callFunction); memcpy(out, &r, sizeof r); }",
      ]
    } else {
      lines += [
        "void \(name)_call(const void *block, void *out) { (void)out; \(callBlock); }",
        "void \(name)_callfn(const void *function, void *out) { (void)out; \(callFunction); }",
      ]
    }
    if let returnType = testCase.returnType {
      lines += [
        "void \(name)_direct(void *out) { \(returnSpelling) r = \(call); memcpy(out, &r, sizeof r); }",
        "uint64_t \(name)_fold(const void *p) { \(returnSpelling) r; memcpy(&r, p, sizeof r); uint64_t h = 1; \(returnType.fold("r").joined(separator: " ")) return h; }",
      ]
    } else {
      lines += ["void \(name)_direct(void *out) { (void)out; \(call); }"]
    }
    for (position, parameter) in testCase.parameters.enumerated() {
      let literal = testCase.literals[position]
      let declaration: String
      if case .array = parameter {
        declaration = "\(parameter.spelling) v[] = \(literal);"
      } else {
        declaration = "\(parameter.spelling) v = \(literal);"
      }
      lines.append("void \(name)_arg\(position + 1)(void *out) { \(declaration) memcpy(out, &v, sizeof v); }")
    }
    return lines
  }
}
