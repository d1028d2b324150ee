import BlockSignature

/// Options of a binary scan.
public struct BinaryScanOptions: Hashable, Sendable {
  /// The longest signature string considered, in bytes.
  public var maximumSignatureLength: Int = 4096
  /// The largest block literal size accepted in a descriptor.
  public var maximumBlockSize: UInt64 = 1 << 24

  /// Creates the default options.
  public init() {}
}
