/// The target facts the layout engine needs: pointer size, `long double`, alignment rules.
///
/// The layout engine is a pure function of an encoding and a data model; it never looks at the
/// host.
///
///     let layout = try TypeEncoding(parsing: "{?=cD}").layout(for: .i386Linux)
///     layout.size  // 16
public struct DataModel: Hashable, Sendable, CustomStringConvertible {
  /// A short stable identifier, such as `x86_64-linux`.
  public var name: String
  /// `sizeof(void *)`.
  public var pointerSize: Int
  /// `sizeof(long)` (what clang writes as `q` on LP64, `l` where it is 4).
  public var longSize: Int
  /// `sizeof(long double)` and its alignment.
  public var longDoubleSize: Int
  /// `_Alignof(long double)`.
  public var longDoubleAlignment: Int
  /// `_Alignof(long long)` and `_Alignof(double)` inside aggregates (4 on i386 Linux).
  public var eightByteAlignment: Int
  /// Whether `__int128` exists on the target.
  public var hasInt128: Bool
  /// Clang's `MaxAtomicPromoteWidth` in bytes: `_Atomic T` at most this big is rounded up to a
  /// power of two and aligned to its size.
  public var maximumAtomicPromotion: Int
  /// Whether plain `char` is signed (`c`) or unsigned (`C`).
  public var isCharSigned: Bool
  /// Whether structures and unions follow Microsoft's C layout (clang's for `*-windows-msvc`):
  /// a bitfield never shares a unit with a bitfield of a different size; a zero-width bitfield
  /// that does not follow a bitfield is ignored; a bitfield does not raise the alignment of a
  /// union; and a structure or union whose fields take no bytes (`struct { }`) takes 4.
  public var usesMicrosoftBitfields: Bool
  /// Whether a zero-width bitfield (`int : 0`) raises the alignment of the structure or union
  /// that holds it to its declared type's, as the AAPCS64 has it on Linux (not on Apple's
  /// arm64): clang lays out `struct { char a; int : 0; char b; }` as 8 bytes aligned to 4 there,
  /// 5 bytes aligned to 1 on x86_64.
  public var zeroWidthBitfieldRaisesAlignment: Bool
  /// How arguments and return values are passed: what the ``CompatibilityLevel/abi`` level and
  /// ``SignatureEncoding/argumentPlacement(for:)`` follow. It is a fact of its own, never read
  /// off ``name``: a model made for another target says which convention it has.
  public var callingConvention: CallingConvention

  /// Creates a data model from its facts.
  ///
  ///     var model = DataModel.aarch64Linux
  ///     model.name = "aarch64-custom"
  ///     model.callingConvention  // .aapcs64: the name plays no part
  public init(
    name: String, pointerSize: Int, longSize: Int, longDoubleSize: Int, longDoubleAlignment: Int,
    eightByteAlignment: Int, hasInt128: Bool, maximumAtomicPromotion: Int, isCharSigned: Bool,
    usesMicrosoftBitfields: Bool, zeroWidthBitfieldRaisesAlignment: Bool = false,
    callingConvention: CallingConvention
  ) {
    self.name = name
    self.pointerSize = pointerSize
    self.longSize = longSize
    self.longDoubleSize = longDoubleSize
    self.longDoubleAlignment = longDoubleAlignment
    self.eightByteAlignment = eightByteAlignment
    self.hasInt128 = hasInt128
    self.maximumAtomicPromotion = maximumAtomicPromotion
    self.isCharSigned = isCharSigned
    self.usesMicrosoftBitfields = usesMicrosoftBitfields
    self.zeroWidthBitfieldRaisesAlignment = zeroWidthBitfieldRaisesAlignment
    self.callingConvention = callingConvention
  }

  /// x86_64 System V (Linux, BSD): LP64, 16-byte `long double`. The default.
  public static let x86_64SysV = DataModel(
    name: "x86_64-linux", pointerSize: 8, longSize: 8, longDoubleSize: 16, longDoubleAlignment: 16,
    eightByteAlignment: 8, hasInt128: true, maximumAtomicPromotion: 16, isCharSigned: true,
    usesMicrosoftBitfields: false, callingConvention: .systemV)

  /// AArch64 Linux: LP64, IEEE quad `long double`, unsigned plain `char`, zero-width bitfields
  /// that raise the alignment of their aggregate.
  public static let aarch64Linux = DataModel(
    name: "aarch64-linux", pointerSize: 8, longSize: 8, longDoubleSize: 16, longDoubleAlignment: 16,
    eightByteAlignment: 8, hasInt128: true, maximumAtomicPromotion: 16, isCharSigned: false,
    usesMicrosoftBitfields: false, zeroWidthBitfieldRaisesAlignment: true, callingConvention: .aapcs64)

  /// arm64 Apple platforms: LP64, `long double` is `double`, signed `char`.
  public static let arm64Apple = DataModel(
    name: "arm64-apple", pointerSize: 8, longSize: 8, longDoubleSize: 8, longDoubleAlignment: 8,
    eightByteAlignment: 8, hasInt128: true, maximumAtomicPromotion: 16, isCharSigned: true,
    usesMicrosoftBitfields: false, callingConvention: .appleARM64)

  /// i386 Linux: ILP32, 12-byte `long double`, 8-byte scalars 4-aligned in aggregates.
  public static let i386Linux = DataModel(
    name: "i386-linux", pointerSize: 4, longSize: 4, longDoubleSize: 12, longDoubleAlignment: 4,
    eightByteAlignment: 4, hasInt128: false, maximumAtomicPromotion: 8, isCharSigned: true,
    usesMicrosoftBitfields: false, callingConvention: .i386)

  /// Windows x64: LLP64 (32-bit `long`), `long double` is `double`, Microsoft bitfields.
  public static let windowsX64 = DataModel(
    name: "x86_64-windows", pointerSize: 8, longSize: 4, longDoubleSize: 8, longDoubleAlignment: 8,
    eightByteAlignment: 8, hasInt128: true, maximumAtomicPromotion: 16, isCharSigned: true,
    usesMicrosoftBitfields: true, callingConvention: .windowsX64)

  /// Every built-in model, the default first.
  /// The model of the machine this code runs on, or nil where no built-in model fits.
  ///
  ///     DataModel.host?.name  // "x86_64-linux" on x86_64 Linux
  public static var host: DataModel? {
    #if arch(x86_64) && os(Windows)
      .windowsX64
    #elseif arch(x86_64)
      .x86_64SysV
    #elseif arch(arm64) && canImport(Darwin)
      .arm64Apple
    #elseif arch(arm64)
      .aarch64Linux
    #elseif arch(i386) && os(Linux)
      .i386Linux
    #else
      nil
    #endif
  }

  public static let allBuiltIn: [DataModel] = [.x86_64SysV, .aarch64Linux, .arm64Apple, .i386Linux, .windowsX64]

  /// The built-in model with the given ``name``, or one of the aliases `x86_64`, `aarch64`,
  /// `arm64`, `i386`, `windows`.
  ///
  ///     DataModel(named: "i386")  // .i386Linux
  public init?(named name: String) {
    switch name.lowercased() {
    case "x86_64", "x86_64-linux", "x86_64-sysv", "sysv", "lp64": self = .x86_64SysV
    case "aarch64", "aarch64-linux": self = .aarch64Linux
    case "arm64", "arm64-apple", "apple": self = .arm64Apple
    case "i386", "i386-linux", "i686", "ilp32": self = .i386Linux
    case "windows", "x86_64-windows", "win64", "llp64": self = .windowsX64
    default: return nil
    }
  }

  /// The model's ``name``.
  public var description: String { name }
}

extension DataModel {
  /// The rules a target passes arguments and return values by, as clang implements them.
  ///
  ///     DataModel.arm64Apple.callingConvention  // .appleARM64
  public enum CallingConvention: String, Hashable, Sendable, CaseIterable {
    /// The x86-64 System V ABI (Linux, BSD): six general-purpose and eight vector registers,
    /// eightbyte classification.
    case systemV = "x86_64-sysv"
    /// The AAPCS64 (AArch64 Linux): eight general-purpose and eight floating-point registers,
    /// homogeneous aggregates, `__int128` in an even-numbered register pair.
    case aapcs64 = "aapcs64"
    /// Apple's arm64 variant of the AAPCS64: no even-register rule for `__int128`, and stack
    /// arguments packed to their own size and alignment.
    case appleARM64 = "arm64-apple"
    /// The Windows x64 convention: four argument positions, each a register or a stack word.
    case windowsX64 = "x86_64-windows"
    /// The i386 System V (cdecl) convention: every argument on the stack.
    case i386 = "i386-sysv"
  }
}
