import BlockSignature
import BlockSignatureBinary
import CBlockSignatureShims

/// What is known about an address: the image it lies in and the symbol at or before it — from
/// the dynamic linker for this process, from the image files for another
/// (``BlockInfo/init(inspecting:inProcess:)``, which names local symbols too).
///
///     let info = SymbolInfo(address: UInt(bitPattern: someFunctionPointer))
///     info?.name  // the symbol, when one starts exactly at the address
///
/// In this process only symbols in the dynamic symbol table are known (`dladdr`); a block's
/// `invoke` function is usually local, so ``name`` is often nil while ``nearestName`` names
/// the closest exported symbol before it (``resolvingLocalSymbols()`` reads the rest).
///
/// It prints as a person reads it: the symbol (or the nearest one and the distance), the
/// address, the image.
///
///     print(info)  // bf_heap_captures_int at 0x7f5cd6694bc0 in ./libBlockFixtures.so
public struct SymbolInfo: Hashable, Sendable, Codable, CustomStringConvertible {
  /// The address looked up.
  public var address: UInt
  /// The path of the image (executable or shared library) that contains the address.
  public var imagePath: String?
  /// The image's load address.
  public var imageBase: UInt?
  /// The symbol that starts exactly at ``address``, if any.
  public var name: String?
  /// The closest exported symbol at or before ``address``.
  public var nearestName: String?
  /// The distance from ``nearestName`` to ``address``.
  public var nearestOffset: UInt?

  /// Looks the address up with `dladdr`; nil for 0 or an address outside every image.
  public init?(address: UInt) {
    guard address != 0, let pointer = UnsafeRawPointer(bitPattern: address) else { return nil }
    var info = CBS_SymbolInfo()
    guard cbs_dladdr(pointer, &info) != 0 else { return nil }
    self.address = address
    imagePath = info.imagePath.map { String(cString: $0) }
    imageBase = info.imageBase
    if let symbolName = info.symbolName, info.symbolAddress != 0 {
      let start = info.symbolAddress
      let symbol = String(cString: symbolName)
      nearestName = symbol
      nearestOffset = address &- start
      if start == address { name = symbol }
    }
  }

  /// An address in an image, with no symbol yet (``ProcessImages`` fills them in).
  init(address: UInt, imagePath: String?, imageBase: UInt?) {
    self.address = address
    self.imagePath = imagePath
    self.imageBase = imageBase
  }

  /// `name`, else `nearest+0xoffset`, else nil.
  public var displayName: String? {
    if let name { return name }
    if let nearestName, let nearestOffset { return "\(nearestName)+\(nearestOffset.hexadecimal())" }
    return nil
  }

  /// ``displayName`` at the address in the image: `main at 0x55d0c6f4a2c0 in /usr/bin/tool`,
  /// `helper+0x1c at 0x7f…`, or the address alone with its image when no symbol is known.
  public var description: String {
    let place = imagePath.map { " in \($0)" } ?? ""
    guard let displayName else { return address.hexadecimal() + place }
    return "\(displayName) at \(address.hexadecimal())\(place)"
  }
}
