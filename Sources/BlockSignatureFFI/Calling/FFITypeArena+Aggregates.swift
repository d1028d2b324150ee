// Structures, unions, arrays in structures and integer `_Complex` values, told to libffi by the
// project's own eightbyte classification rather than member by member: libffi 3.4 has no unions,
// classifies a byte array as INTEGER where clang may see SSE, and returns
// `struct { long double x; }` from the wrong registers.

import BlockSignature
import CFFI

extension FFITypeArena {
  /// A stand-in for an aggregate: on x86_64 System V, one element per eightbyte of the class
  /// clang gives it (INTEGER: an unsigned integer of the eightbyte's bytes; SSE: a `double` or
  /// `float`), or a run of words when it goes in memory; size and alignment are the real ones.
  func aggregate(_ type: TypeEncoding, model: DataModel, asParameter: Bool) throws(ShapeError)
    -> UnsafeMutablePointer<ffi_type>?
  {
    guard model.callingConvention == .systemV else {
      throw ShapeError(
        path: [], message: "structures, unions and arrays are described to libffi on x86_64 System V only")
    }
    let abi = type.abiShape(for: model, asParameter: asParameter)
    switch abi.passing {
    case .void:
      return nil
    case .eightbytes(.x87, .x87):
      // A `long double` alone in a record, returned in ST0 as clang does (libffi's own struct
      // path would read RAX:RDX).
      return cffi_type_longdouble()
    case .eightbytes(let first, let second):
      var elements: [UnsafeMutablePointer<ffi_type>] = []
      for (index, registerClass) in [first, second].enumerated() where index * 8 < abi.size {
        elements += try eightbyte(registerClass, bytes: min(8, abi.size - index * 8))
      }
      return structure(size: abi.size, alignment: abi.alignment, elements: elements)
    case .memory where abi.size > 16:
      return memoryStandIn(size: abi.size, alignment: abi.alignment)
    case .memory where asParameter && abi.size == 16 && abi.alignment == 16:
      // 16 bytes aligned to 16 in memory: libffi passes an x87 value in memory as well.
      return cffi_type_longdouble()
    case .memory:
      throw ShapeError(
        path: [],
        message:
          "a \(abi.size)-byte aggregate that clang \(asParameter ? "passes" : "returns") in memory (unaligned members, or long double mixed with other members): libffi 3.4 cannot be told so"
      )
    default:
      throw ShapeError(
        path: [], message: "the encoding does not decide how clang passes this type (\(abi.passing.name))")
    }
  }

  private func eightbyte(_ registerClass: RegisterClass, bytes: Int) throws(ShapeError) -> [UnsafeMutablePointer<
    ffi_type
  >] {
    switch (registerClass, bytes) {
    case (.sse, 8): return [cffi_type_double()]
    case (.sse, 4): return [cffi_type_float()]
    case (.integer, 8): return [cffi_type_uint64()]
    case (.integer, 4): return [cffi_type_uint32()]
    case (.integer, 2): return [cffi_type_uint16()]
    case (.integer, _): return Array(repeating: cffi_type_uint8(), count: bytes)
    default:
      throw ShapeError(path: [], message: "an eightbyte of class \(registerClass.name) and \(bytes) bytes")
    }
  }

  /// More than 16 bytes: in memory whatever the members, so only size and alignment count.
  private func memoryStandIn(size: Int, alignment: Int) -> UnsafeMutablePointer<ffi_type> {
    let words = Array(repeating: cffi_type_uint64(), count: size / 8)
    let tail = Array(repeating: cffi_type_uint8(), count: size % 8)
    return structure(size: size, alignment: alignment, elements: words + tail)
  }
}
