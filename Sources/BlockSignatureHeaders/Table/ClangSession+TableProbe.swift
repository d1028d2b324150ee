// The probe: a program clang compiles with the header, which makes a block of each member's
// type and prints the signature clang wrote for it, with the member's offset and size.

import BlockSignature
import CBlockABI
import Foundation

/// What the probe printed: per member, clang's block signature, `offsetof` and `sizeof`.
struct HeaderProbe {
  struct Member {
    var signature: String
    var offset: Int
    var size: Int
  }

  var members: [Member]
  var size: Int
  var alignment: Int
}

extension ClangSession {
  /// Compiles and runs the probe for `fields`.
  func probe(_ fields: [HeaderField], functions: [Int: HeaderFunctionType], in spelling: String)
    throws(HeaderReaderError)
    -> HeaderProbe
  {
    let output = try compileAndRun(
      Self.probeSource(header: header, fields, functions: functions, in: spelling), named: "probe.c",
      flags: ["-fblocks"] + arguments)
    return try Self.readProbe(output, count: fields.count)
  }

  /// The probe's C source. A function member's block has the member's parameters and, as its
  /// return type, the type of a call to the function declared with the member's type; a data
  /// member's block takes the member (an array one a pointer to it, which keeps its length).
  static func probeSource(
    header: String, _ fields: [HeaderField], functions: [Int: HeaderFunctionType], in spelling: String
  ) -> String {
    var lines = [
      includeLine(header),
      "#include <stddef.h>", "#include <stdint.h>", "#include <stdio.h>",
      "void *_NSConcreteGlobalBlock[32];",  // the isa of a global block: no runtime is linked
      functionDeclarations(fields, in: spelling),
      signatureReader,
      "int main(void) {",
    ]
    for (index, field) in fields.enumerated() {
      let member = "((\(spelling) *)0)->\(field.name)"
      let block: String
      if let function = functions[index] {
        let types = function.parameters.map { "__typeof__(\($0))" }
        let call = types.map { "*(\($0) *)0" }.joined(separator: ", ")
        let parameters = types.isEmpty ? "void" : types.enumerated().map { "\($1) a\($0)" }.joined(separator: ", ")
        block = "^__typeof__(blocksig_function_\(index)(\(call))) (\(parameters)) { __builtin_unreachable(); }"
      } else {
        block = "^(__typeof__(\(member)) \(field.isArray ? "*" : "")a0) {}"
      }
      lines.append(
        "  printf(\"%s\\t%zu\\t%zu\\n\", blocksig_signature((const void *)\(block)), "
          + "offsetof(\(spelling), \(field.name)), sizeof(\(member)));")
    }
    lines.append("  printf(\"%zu\\t%zu\\n\", sizeof(\(spelling)), _Alignof(\(spelling)));")
    lines.append("  return 0;\n}\n")
    return lines.joined(separator: "\n")
  }

  /// The probe's reader of a block's signature (`-` when it has none), written from
  /// CBlockABI's mirror of the ABI: where the flags and the descriptor are, what the flags
  /// say, and how far the signature is into the descriptor.
  static var signatureReader: String {
    let flags = MemoryLayout<CBA_Block_layout>.offset(of: \.flags)!
    let descriptor = MemoryLayout<CBA_Block_layout>.offset(of: \.descriptor)!
    let first = MemoryLayout<CBA_Block_descriptor_1>.size
    let helpers = MemoryLayout<CBA_Block_descriptor_2>.size
    return """
      static const char *blocksig_signature(const void *block) {
        int flags = *(const int *)((const char *)block + \(flags));
        if (!(flags & \(BlockFlags.hasSignature.rawValue))) return "-";
        const char *descriptor = *(const char *const *)((const char *)block + \(descriptor));
        return *(const char *const *)(descriptor + \(first) + ((flags & \(BlockFlags.hasCopyDispose.rawValue)) ? \(helpers) : 0));
      }
      """
  }

  /// The probe's output: a `signature offset size` line per member, then `size alignment`.
  static func readProbe(_ output: String, count: Int) throws(HeaderReaderError) -> HeaderProbe {
    let lines = output.split(separator: "\n").map { $0.split(separator: "\t", omittingEmptySubsequences: false) }
    guard lines.count == count + 1, let last = lines.last, last.count == 2, let size = Int(last[0]),
      let alignment = Int(last[1])
    else {
      throw HeaderReaderError(.probeFailed, "the probe printed what it should not:\n\(output)")
    }
    var members: [HeaderProbe.Member] = []
    for line in lines.dropLast() {
      guard line.count == 3, let offset = Int(line[1]), let memberSize = Int(line[2]) else {
        throw HeaderReaderError(.probeFailed, "the probe printed what it should not:\n\(output)")
      }
      members.append(HeaderProbe.Member(signature: String(line[0]), offset: offset, size: memberSize))
    }
    return HeaderProbe(members: members, size: size, alignment: alignment)
  }
}
