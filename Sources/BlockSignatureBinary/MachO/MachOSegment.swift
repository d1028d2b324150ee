/// A segment of a linked Mach-O image, indexed as dyld indexes them (load-command order).
struct MachOSegment {
  var name: String
  var address: UInt64
  var size: UInt64
  var fileOffset: UInt64
  var fileSize: UInt64
}
