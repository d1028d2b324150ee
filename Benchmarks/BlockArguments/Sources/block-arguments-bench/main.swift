// Times sortedArrayUsingComparator: over the same strings two ways, in alternating rounds in
// one process, and prints the median time per sort of each and the ratio:
//   compiled  a clang block that sends compare:, in compiled Objective-C
//   Swift     a Swift @convention(block) closure that sends compare: through ObjCMessage's raw
//             send, passed as an ObjCBlockArgument checked against NSComparator's signature
//   Swift IMP the same closure calling compare:'s implementation (looked up once for the
//             strings' class) as a C function: what compiled code's send does once looked up

import BlockSignature
import BlockSignatureFFI
import BlockSignatureObjC
import Glibc

let arguments = CommandLine.arguments
guard arguments.count >= 2, let library = dlopen(arguments[1], RTLD_NOW | RTLD_GLOBAL) else {
  print("usage: block-arguments-bench LIBCOMPILED.so [strings] [sorts per round]")
  exit(64)
}
let count = arguments.count > 2 ? Int(arguments[2]) ?? 1000 : 1000
let sorts = arguments.count > 3 ? Int(arguments[3]) ?? 200 : 200
let rounds = 7

func symbol<T>(_ name: String, as type: T.Type) -> T { unsafeBitCast(dlsym(library, name)!, to: T.self) }
let makeWords = symbol("bench_words", as: (@convention(c) (Int) -> UnsafeRawPointer).self)
let sortCompiled = symbol("bench_sort_compiled", as: (@convention(c) (UnsafeRawPointer, Int) -> Int).self)
let sortedText = symbol(
  "bench_sorted_text", as: (@convention(c) (UnsafeRawPointer, UnsafeRawPointer?) -> UnsafeRawPointer).self)

func now() -> Double {
  var time = timespec()
  clock_gettime(CLOCK_MONOTONIC, &time)
  return Double(time.tv_sec) + Double(time.tv_nsec) * 1e-9
}

/// `value`, or an error saying what is missing.
func require<T>(_ value: T?, _ what: String) throws -> T {
  guard let value else { throw BenchmarkError(message: "no \(what)") }
  return value
}

struct BenchmarkError: Error, CustomStringConvertible {
  var message: String
  var description: String { message }
}

do {
  try ObjCRuntime.withAutoreleasePool {
    try ObjCRuntime.loadFoundation()
    let words = ObjCObject(adopting: makeWords(count))
    let compareMessage = try ObjCMessage("compare:", class: ObjCClass(named: "NSString"))
    nonisolated(unsafe) var comparisons = 0
    let compare: @convention(block) (UnsafeRawPointer?, UnsafeRawPointer?) -> Int = { a, b in
      comparisons += 1
      guard let a else { return 0 }
      var other = b
      var result = (0, 0)  // a whole result buffer (resultBufferSize is at most 16 bytes here)
      withUnsafeMutableBytes(of: &result) { out in
        withUnsafeBytes(of: &other) { argument in
          var pointer = UnsafeRawPointer(argument.baseAddress)
          withUnsafePointer(to: &pointer) { pointers in
            _ = try? compareMessage.send(to: a, result: out.baseAddress, arguments: pointers)
          }
        }
      }
      return result.0
    }
    typealias CompareIMP = @convention(c) (UnsafeRawPointer, UnsafeRawPointer, UnsafeRawPointer?) -> Int
    let firstWord = try require(try words.sendForObject("objectAtIndex:", .unsigned(0)), "first string")
    let method = try require(firstWord.objectClass.instanceMethod("compare:"), "compare: method")
    let compareIMP = unsafeBitCast(method.implementation, to: CompareIMP.self)
    let compareSelector = Selector("compare:").pointer
    let compareDirect: @convention(block) (UnsafeRawPointer?, UnsafeRawPointer?) -> Int = { a, b in
      comparisons += 1
      guard let a else { return 0 }
      return compareIMP(a, compareSelector, b)
    }
    let comparator = try MethodSignature(parsing: "q24@?0@8@16")  // NSComparator, as clang writes it
    let argument = try withExtendedLifetime(compare) {
      try ObjCBlockArgument(block: unsafeBitCast(compare, to: UnsafeRawPointer.self), expecting: comparator)
    }
    let direct = try withExtendedLifetime(compareDirect) {
      try ObjCBlockArgument(block: unsafeBitCast(compareDirect, to: UnsafeRawPointer.self), expecting: comparator)
    }
    let sortMessage = try ObjCMessage("sortedArrayUsingComparator:", class: words.objectClass)

    let swiftSorted = try ObjCObject(adopting: sortedText(words.pointer, argument.block)).stringValue()
    let compiledSorted = try ObjCObject(adopting: sortedText(words.pointer, nil)).stringValue()
    let directSorted = try ObjCObject(adopting: sortedText(words.pointer, direct.block)).stringValue()
    guard swiftSorted == compiledSorted, directSorted == compiledSorted else {
      print("error: the Swift block sorts otherwise than the clang block")
      exit(1)
    }

    var checksum = 0
    let ways: [(String, () throws -> Void)] = [
      ("compiled", { checksum &+= sortCompiled(words.pointer, sorts) }),
      (
        "Swift",
        {
          for _ in 0..<sorts {
            comparisons = 0
            try ObjCRuntime.withAutoreleasePool {
              _ = try sortMessage.send(to: words.pointer, [argument.value])
            }
          }
          checksum &+= comparisons
        }
      ),
      (
        "Swift IMP",
        {
          for _ in 0..<sorts {
            comparisons = 0
            try ObjCRuntime.withAutoreleasePool {
              _ = try sortMessage.send(to: words.pointer, [direct.value])
            }
          }
          checksum &+= comparisons
        }
      ),
    ]
    var samples = [[Double]](repeating: [], count: ways.count)
    for way in ways { try way.1() }  // warm-up
    for round in 0..<rounds {
      let order = round % 2 == 0 ? Array(ways.indices) : ways.indices.reversed()
      for index in order {
        let start = now()
        try ways[index].1()
        samples[index].append((now() - start) / Double(sorts) * 1e6)
      }
    }
    let medians = samples.map { $0.sorted()[$0.count / 2] }
    print("\(count) strings, \(sorts) sorts per round, \(rounds) rounds (alternating order); median µs per sort")
    for (index, way) in ways.enumerated() {
      let ratio = medians[index] / medians[0]
      let name = way.0 + String(repeating: " ", count: max(0, 11 - way.0.count))
      print("\(name)\((medians[index] * 10).rounded() / 10) µs  \((ratio * 100).rounded() / 100)× compiled")
    }
    print("checksum \(checksum)")
  }
} catch {
  print("error: \(error)")
  exit(1)
}
