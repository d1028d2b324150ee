/// An argument as the frame scanner's first pass reads it: its type and written offset (-1 when
/// absent), and where its encoding lies (for the head and the hidden-layout check).
struct ScannedArgument {
  var size: Int
  var alignment: Int
  var caveats: LayoutCaveats
  var shape: TypeShape
  var written: Int
  var typeStart: Int
  var typeEnd: Int
}
