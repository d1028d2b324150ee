import BlockSignature

/// The ELF class and byte order, LLVM's `ELFType<endianness, Is64>` as a value.
struct ELFVariant: Hashable, Sendable {
  var is64: Bool
  var order: ByteOrder
  var wordSize: Int { is64 ? 8 : 4 }
}
