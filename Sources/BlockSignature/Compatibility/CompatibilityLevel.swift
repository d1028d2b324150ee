/// How strictly a compatibility check compares two signatures, strictest first.
///
///     try CompatibilityChecker(level: .equivalent).check(candidate, against: expected).isCompatible
///
/// Every level compares the return type and the explicit arguments (those after the block, or
/// after `self` and `_cmd`), so a block can be checked against a block, a method or a C function:
/// method arguments 2… map to block arguments 1….
public enum CompatibilityLevel: String, Hashable, Sendable, Codable, CaseIterable, CustomStringConvertible {
  /// The same types; offsets and register markers ignored.
  ///
  /// `v16@?0@"NSString"8` and `v@?@"NSString"` are identical; `@"NSString"` and `@` are not.
  case identical
  /// The same types up to what no caller can observe: qualifiers (`r*` ≈ `*`), class and
  /// protocol names (`@"NSString"` ≈ `@`), objects of any kind (`@` ≈ `#` ≈ `@?` ≈ `@?<v@?>`),
  /// `*` ≈ `^c` (and `^C`: clang writes every `char *` as `*`), anonymous structures against
  /// named ones (`{?=dd}` ≈ `{P=dd}`), opaque against expanded (`^^{S}` ≈ `^^{S=dd}`) and field
  /// names.
  ///
  /// `{A=ii}` and `{B=ii}` are not equivalent (different names); `i` and `I` are not either.
  case equivalent
  /// Passed and returned the same way on the checker's ``DataModel`` (size, register class,
  /// alignment in memory), and every argument in the same place once the registers run out.
  /// <doc:CompatibilityLevels> lists the rules per convention and what is left uncompared.
  ///
  ///     try CompatibilityChecker(level: .abi, model: .x86_64SysV).check("v@?qqqqqt", against: "v@?qqqqq{?=qq}")
  ///       .isCompatible  // true
  case abi
  /// BlocksKit's `+[A2BlockInvocation isSignature:compatibleWithSignature:]`, for parity:
  /// first characters compared, its known flaws kept (<doc:CompatibilityLevels>).
  case blocksKit = "blockskit"
  /// Aspects' `aspect_isCompatibleBlockSignature`, for parity: the block may take fewer
  /// arguments, its argument 1 must be an object, the return type is ignored
  /// (<doc:CompatibilityLevels>).
  case aspects

  /// The level's name, as the CLI spells it.
  public var description: String { rawValue }
}
