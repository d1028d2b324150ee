/// Where a symbol table or relocation section lies and what it refers to: headers with the
/// same key describe the same entries.
struct ELFTableKey: Hashable {
  var offset: UInt64
  var size: UInt64
  /// A symbol table's string table (its offset), or a relocation section's symbol table (its
  /// section index).
  var refersTo: UInt64
  /// The string table's size, or the address of the section relocated (objects; else 0).
  var detail: UInt64
}
