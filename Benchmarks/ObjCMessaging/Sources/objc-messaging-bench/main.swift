// Times -[BSBenchTarget add:to:] sent seven ways, in alternating rounds in one process, and
// prints the median time per call of each and its ratio to the compiled send:
//   compiled     gcc-compiled [target add:i to:1] (objc_msg_lookup, then the call)
//   NSInvocation GNUstep's NSInvocation, arguments set on each call
//   ffi_call     the floor of a send through a type encoding: objc_msg_lookup, then a bare
//                libffi call with an interface prepared once (C)
//   raw          ObjCMessage.send(to:result:arguments:): argument pointers, no allocation
//   typed        ObjCMessage.send(to:_:) with CValues
//   block IMP    the compiled send, to a class whose add:to: is a Swift block
//                (BlockMethodImplementation)
//   C block IMP  the same, the block a C function laid out as a clang block (no Swift closure)

import BlockSignatureFFI
import BlockSignatureObjC
import Glibc

let arguments = CommandLine.arguments
guard arguments.count >= 2, let library = dlopen(arguments[1], RTLD_NOW | RTLD_GLOBAL) else {
  print("usage: objc-messaging-bench LIBCOMPILED.so [calls per round]")
  exit(64)
}
let calls = arguments.count > 2 ? Int(arguments[2]) ?? 200_000 : 200_000
let rounds = 7

func symbol<T>(_ name: String, as type: T.Type) -> T { unsafeBitCast(dlsym(library, name)!, to: T.self) }
typealias Loop = @convention(c) (UnsafeRawPointer, Int) -> Int
let makeTarget = symbol("bench_target", as: (@convention(c) () -> UnsafeRawPointer).self)
let compiled = symbol("bench_compiled", as: Loop.self)
let invocation = symbol("bench_invocation", as: Loop.self)
let bareFFI = symbol("bench_ffi", as: Loop.self)

func now() -> Double {
  var time = timespec()
  clock_gettime(CLOCK_MONOTONIC, &time)
  return Double(time.tv_sec) + Double(time.tv_nsec) * 1e-9
}

do {
  try ObjCRuntime.loadFoundation()
  let target = ObjCObject(adopting: makeTarget())
  let message = try ObjCMessage("add:to:", class: target.objectClass)
  let builder = try ObjCClassBuilder(name: "BSBenchBlockTarget", superclass: ObjCClass(named: "NSObject"))
  let add: @convention(block) (UnsafeRawPointer?, Int32, Int32) -> Int32 = { _, a, b in a &+ b }
  try builder.addMethod("add:to:", types: message.signature.description, block: unsafeBitCast(add, to: UnsafeRawPointer.self))
  let blockTarget = try builder.register().makeInstance()
  let cBuilder = try ObjCClassBuilder(name: "BSBenchCBlockTarget", superclass: ObjCClass(named: "NSObject"))
  let cBlock = symbol("bench_c_block", as: (@convention(c) () -> UnsafeRawPointer).self)()
  try cBuilder.addMethod("add:to:", types: message.signature.description, block: cBlock)
  let cBlockTarget = try cBuilder.register().makeInstance()

  var checksum = 0
  let ways: [(String, () throws -> Void)] = [
    ("compiled", { checksum &+= compiled(target.pointer, calls) }),
    ("NSInvocation", { checksum &+= invocation(target.pointer, calls) }),
    ("ffi_call", { checksum &+= bareFFI(target.pointer, calls) }),
    ("raw", {
      var a: Int32 = 0, b: Int32 = 1
      var result = (UInt64(0), UInt64(0))
      try withUnsafeMutableBytes(of: &result) { out in
        try withUnsafeMutableBytes(of: &a) { first in
          try withUnsafeBytes(of: &b) { second in
            try [UnsafeRawPointer(first.baseAddress), second.baseAddress].withUnsafeBufferPointer { pointers in
              for index in 0..<calls {
                first.storeBytes(of: Int32(truncatingIfNeeded: index), as: Int32.self)
                try message.send(to: target.pointer, result: out.baseAddress, arguments: pointers.baseAddress!)
                checksum &+= Int(out.load(as: Int32.self))
              }
            }
          }
        }
      }
    }),
    ("typed", {
      for index in 0..<calls {
        if case .signed(let sum) = try message.send(to: target.pointer, [.signed(Int128(index)), .signed(1)]) {
          checksum &+= Int(sum)
        }
      }
    }),
    ("block IMP", { checksum &+= compiled(blockTarget.pointer, calls) }),
    ("C block IMP", { checksum &+= compiled(cBlockTarget.pointer, calls) }),
  ]
  // One way alone, for an instruction count: BENCH_ONLY="typed" valgrind --tool=callgrind …
  if let only = getenv("BENCH_ONLY").map({ String(cString: $0) }) {
    if let way = ways.first(where: { $0.0 == only }) { try way.1() }
    print("checksum \(checksum)")
    exit(0)
  }
  var samples = [[Double]](repeating: [], count: ways.count)
  for _ in 0..<1 { for way in ways { try way.1() } }  // warm-up
  for round in 0..<rounds {
    let order = round % 2 == 0 ? Array(ways.indices) : ways.indices.reversed()
    for index in order {
      let start = now()
      try ways[index].1()
      samples[index].append((now() - start) / Double(calls) * 1e9)
    }
  }
  let medians = samples.map { $0.sorted()[$0.count / 2] }
  print("calls per round: \(calls), rounds: \(rounds) (alternating order); median ns per call")
  for (index, way) in ways.enumerated() {
    let ratio = medians[index] / medians[0]
    let name = way.0 + String(repeating: " ", count: max(0, 14 - way.0.count))
    print("\(name)\((medians[index] * 10).rounded() / 10) ns  \((ratio * 100).rounded() / 100)× compiled")
  }
  print("checksum \(checksum)")
} catch {
  print("error: \(error)")
  exit(1)
}
