// The libffi types of one call interface: built once from the project's own ABI classification,
// owned here and freed together. libffi is told a stand-in whose registers and stack bytes are
// those clang uses; the values themselves are written at the real C layout.

import BlockSignature
import CFFI

/// Owns the `ffi_type`s and element lists built for one call interface.
final class FFITypeArena {
  private var types: [UnsafeMutablePointer<ffi_type>] = []
  private var lists: [UnsafeMutablePointer<UnsafeMutablePointer<ffi_type>?>] = []

  deinit {
    for type in types { type.deallocate() }
    for list in lists { list.deallocate() }
  }

  /// A structure type of exactly `size` bytes aligned to `alignment`, with these elements.
  /// Size and alignment are set here, so libffi keeps them instead of computing its own.
  func structure(size: Int, alignment: Int, elements: [UnsafeMutablePointer<ffi_type>]) -> UnsafeMutablePointer<
    ffi_type
  > {
    let list = UnsafeMutablePointer<UnsafeMutablePointer<ffi_type>?>.allocate(capacity: elements.count + 1)
    for (index, element) in elements.enumerated() { list[index] = element }
    list[elements.count] = nil
    lists.append(list)
    let type = UnsafeMutablePointer<ffi_type>.allocate(capacity: 1)
    type.initialize(
      to: ffi_type(size: size, alignment: UInt16(alignment), type: cffi_type_struct_tag(), elements: list))
    types.append(type)
    return type
  }

  /// The libffi type that passes (`asParameter`) or returns `type`, whose shape is `shape`, as
  /// clang does on `model`; nil for a type without bytes, which clang leaves out of the call.
  func type(for type: TypeEncoding, shape: ValueShape, model: DataModel, asParameter: Bool) throws(ShapeError)
    -> UnsafeMutablePointer<ffi_type>?
  {
    switch shape {
    case .empty: return nil
    case .integer(let size, let isSigned, _):
      switch size {
      case 1: return isSigned ? cffi_type_sint8() : cffi_type_uint8()
      case 2: return isSigned ? cffi_type_sint16() : cffi_type_uint16()
      case 4: return isSigned ? cffi_type_sint32() : cffi_type_uint32()
      case 8: return isSigned ? cffi_type_sint64() : cffi_type_uint64()
      default: return try int128(model: model)
      }
    case .bool: return cffi_type_uint8()
    case .float: return cffi_type_float()
    case .double: return cffi_type_double()
    case .longDouble: return cffi_type_longdouble()
    case .pointer: return cffi_type_pointer()
    case .complex(let element, _):
      switch element {
      case .float: if let complex = cffi_type_complex_float() { return complex }
      case .double: if let complex = cffi_type_complex_double() { return complex }
      case .longDouble: if let complex = cffi_type_complex_longdouble() { return complex }
      default: break
      }
      return try aggregate(type, model: model, asParameter: asParameter)
    case .record, .union, .array:
      return try aggregate(type, model: model, asParameter: asParameter)
    case .bitfield:
      throw ShapeError(path: [], message: "a bitfield outside a structure")
    }
  }

  /// `__int128`: libffi 3.4 has no type for it. On x86_64 System V two INTEGER eightbytes
  /// aligned to 16 are passed and returned exactly as clang passes `__int128`.
  private func int128(model: DataModel) throws(ShapeError) -> UnsafeMutablePointer<ffi_type> {
    guard model.callingConvention == .systemV else {
      throw ShapeError(path: [], message: "__int128 is described to libffi on x86_64 System V only")
    }
    return structure(size: 16, alignment: 16, elements: [cffi_type_uint64(), cffi_type_uint64()])
  }
}
