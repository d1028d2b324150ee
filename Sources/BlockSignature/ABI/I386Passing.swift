// i386 (cdecl): every argument on the stack, so only sizes matter; return values in EAX,
// EDX:EAX, on the x87 stack, or through a hidden pointer.

extension TypeEncoding {
  /// i386 (cdecl): every argument on the stack at the next 4-byte-aligned offset, so arguments
  /// differ only in size (clang: `byval … align 4` copies, and scalars and the fields of records
  /// it expands in 4-byte slots). Return values: a `_Complex` of 2, 4 or 8 bytes in EAX or
  /// EDX:EAX like an integer (clang: `i16`, `i32`, `i64`), every other aggregate through a hidden
  /// pointer, floating point on the x87 stack, integers and pointers in EAX (EDX:EAX).
  func i386Passing(size: Int, asParameter: Bool) -> ParameterPassing {
    if asParameter { return .memory }
    if case .complex = self, size == 2 || size == 4 || size == 8 { return .integer(count: (size + 3) / 4) }
    if isAggregate { return .memory }
    if scalarKind == .floatingPoint { return .floatingPoint(size: size, count: 1) }
    return .integer(count: max(1, (size + 3) / 4))
  }
}
