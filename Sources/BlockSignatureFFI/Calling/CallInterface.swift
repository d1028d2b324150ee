// One prepared libffi call interface for a signature: every argument (hidden ones included) and
// the return value resolved to shapes and libffi types once, then read-only and shared by every
// thread that calls through it.

import BlockSignature
import CFFI

/// A signature prepared for libffi: `ffi_cif`, the types it points at, and each value's shape.
package final class CallInterface: @unchecked Sendable {
  package let signature: MethodSignature
  package let returnShape: ValueShape
  /// One per argument of the signature, hidden ones included.
  package let argumentShapes: [ValueShape]
  package let passedCount: Int
  /// Where each argument sits in libffi's list of passed arguments; nil for an argument that is
  /// not passed at all (clang leaves out arguments without bytes).
  package let passedIndex: [Int?]
  /// Bytes a result buffer needs: libffi writes a whole `ffi_arg` for narrow integers.
  package let resultBufferSize: Int
  /// Each argument's and the result's direct access, for a scalar (nil for any other type):
  /// a typed call stores and loads these without walking a shape.
  package let scalarAccess: [ScalarAccess?]
  package let returnScalarAccess: ScalarAccess?
  /// Where a typed call puts each argument in one buffer, each aligned to 16, and the buffer's
  /// size.
  let storageOffsets: [Int]
  let storageSize: Int
  package let cif: UnsafeMutablePointer<ffi_cif>
  /// The passed arguments' libffi types, `passedCount` of them; read-only once prepared.
  let argumentTypes: UnsafeMutablePointer<UnsafeMutablePointer<ffi_type>?>
  /// The return value's libffi type.
  let returnType: UnsafeMutablePointer<ffi_type>
  private let arena = FFITypeArena()

  /// Prepares `signature` for calls on the host (`model` must be the host's).
  package init(signature: MethodSignature, model: DataModel) throws(InvocationError) {
    self.signature = signature
    try Self.checkOffsets(signature)
    var shapes: [ValueShape] = []
    var types: [UnsafeMutablePointer<ffi_type>] = []
    var passed: [Bool] = []
    for (index, argument) in signature.encoding.arguments.enumerated() {
      do {
        let shape = try ValueShape(argument.type, model: model)
        try Self.checkSize(of: shape)
        let type = try arena.type(for: argument.type, shape: shape, model: model, asParameter: true)
        shapes.append(shape)
        passed.append(type != nil)
        if let type { types.append(type) }
      } catch {
        throw InvocationError(kind: .unsupportedType, argument: index, path: error.path, message: error.message)
      }
    }
    let returnFFIType: UnsafeMutablePointer<ffi_type>?
    do {
      returnShape = try ValueShape(signature.encoding.returnType, model: model)
      try Self.checkSize(of: returnShape)
      returnFFIType = try arena.type(
        for: signature.encoding.returnType, shape: returnShape, model: model, asParameter: false)
    } catch {
      throw InvocationError(kind: .unsupportedReturnType, path: error.path, message: error.message)
    }
    argumentShapes = shapes
    scalarAccess = shapes.map(ScalarAccess.init)
    returnScalarAccess = ScalarAccess(returnShape)
    var nextIndex = 0
    passedIndex = passed.map { isPassed in
      defer { if isPassed { nextIndex += 1 } }
      return isPassed ? nextIndex : nil
    }
    passedCount = types.count
    resultBufferSize = max(16, (returnShape.size + 15) & ~15)
    var offsets: [Int] = []
    var total = 0
    for shape in shapes {
      offsets.append(total)
      total += (shape.size + 15) & ~15
    }
    storageOffsets = offsets
    storageSize = max(16, total)
    argumentTypes = .allocate(capacity: max(1, types.count))
    for (index, type) in types.enumerated() { argumentTypes[index] = type }
    returnType = returnFFIType ?? cffi_type_void()
    cif = .allocate(capacity: 1)
    let status = ffi_prep_cif(cif, cffi_default_abi(), UInt32(types.count), returnType, argumentTypes)
    guard status == FFI_OK else {
      // Every stored property is set: deinit runs on the throw and frees the two buffers.
      throw InvocationError(kind: .preparationFailed, message: "ffi_prep_cif returned status \(status.rawValue)")
    }
  }

  deinit {
    cif.deallocate()
    argumentTypes.deallocate()
  }

  /// The most bytes one argument or the return value may have: every call allocates them, and
  /// libffi is told a value in memory word by word.
  static let maximumValueSize = 1 << 24

  /// Refuses a value too large to allocate for a call (a declared `{S=[1048576[1048576c]]}`).
  static func checkSize(of shape: ValueShape) throws(ShapeError) {
    guard shape.size <= maximumValueSize else {
      throw ShapeError(
        path: [], message: "a value of \(shape.size) bytes is larger than a call passes (at most \(maximumValueSize))")
    }
  }

  /// Refuses a signature whose offsets show a layout the encoding hides (a packed or
  /// over-aligned record): the bytes would go where clang does not put them.
  private static func checkOffsets(_ signature: MethodSignature) throws(InvocationError) {
    for note in signature.layout.notes where note.kind == .offsetMismatch || note.kind == .hiddenLayout {
      throw InvocationError(
        kind: .unsupportedType, argument: note.argument,
        message: "the signature's offsets disagree with the layout of the encoding (\(note.message))")
    }
  }
}
