import BlockSignature
import BlockSignatureFFI
import BlockSignatureObjC
import BlockSignatureSystem
import Foundation
import Testing

/// Methods implemented by blocks — on a class made at run time, on GNUstep's classes and on a
/// compiled class — called by Objective-C compiled by gcc, by `performSelector:` and by a sort.
///
/// One at a time: these tests change the methods of sibling subclasses and then free the
/// replaced implementations, and ``MethodReplacement`` supports changes from one thread at a
/// time (in parallel, a restored subclass can still dispatch to its freed implementation,
/// whose memory a sibling test's new implementation has taken).
@Suite(.serialized) struct BlockMethodTests {
  init() throws {
    try ObjCRuntime.loadFoundation()
    _ = try OracleFixture.handle.get()
  }

  static func uniqueName(_ base: String) -> String { "\(base)_\(UInt32.random(in: 0...UInt32.max))" }

  typealias Object = UnsafeRawPointer?

  /// A class made at run time that adopts the fixture's protocol, with every method a block of
  /// the types the runtime records for the protocol.
  static func makeCalculator() throws -> ObjCClass {
    let everyType = try ObjCProtocol(named: "BSEveryType")
    let types = Dictionary(
      uniqueKeysWithValues: everyType.methods(required: true).map { ($0.selector.name, $0.signature.description) })
    #expect(types.count == 11)
    let builder = try ObjCClassBuilder(name: uniqueName("BSBlockCalculator"), superclass: ObjCClass(named: "NSObject"))
    try builder.addProtocol(everyType)
    try builder.addInstanceVariable("total", types: "q")
    func install(_ name: String, _ block: UnsafeRawPointer) throws {
      try builder.addMethod(Selector(name), types: try #require(types[name]), block: block)
    }
    let add: @convention(block) (Object, Int32, Int32) -> Int32 = { _, a, b in a &* 10 &+ b }
    try install("add:to:", unsafeBitCast(add, to: UnsafeRawPointer.self))
    let scale: @convention(block) (Object, Double, Float) -> Double = { _, x, factor in x * Double(factor) + 1 }
    try install("scale:by:", unsafeBitCast(scale, to: UnsafeRawPointer.self))
    let isEven: @convention(block) (Object, Int) -> UInt8 = { _, value in value % 2 == 0 ? 1 : 0 }
    try install("isEven:", unsafeBitCast(isEven, to: UnsafeRawPointer.self))
    let selectorNamed: @convention(block) (Object, UnsafePointer<CChar>?) -> UnsafeRawPointer? = { _, name in
      Selector(String(cString: name!) + "Twice").pointer
    }
    try install("selectorNamed:", unsafeBitCast(selectorNamed, to: UnsafeRawPointer.self))
    let classOf: @convention(block) (Object, Object) -> UnsafeRawPointer? = { _, object in
      ObjCClass(of: object!).superclass?.pointer
    }
    try install("classOf:", unsafeBitCast(classOf, to: UnsafeRawPointer.self))
    let low: @convention(block) (Object, UInt16) -> UInt8 = { _, value in UInt8(value >> 8) }
    try install("low:", unsafeBitCast(low, to: UnsafeRawPointer.self))
    let pick: @convention(block) (Object, Object, Object, UInt8) -> UnsafeRawPointer? = { _, first, second, takeFirst in
      takeFirst != 0 ? second : first
    }
    try install("pick:or:first:", unsafeBitCast(pick, to: UnsafeRawPointer.self))
    // Structures and long double: made blocks with typed handlers.
    let half = try DynamicBlock(signature: "D@D") { arguments in
      guard case .longDouble(let value) = arguments[1] else { return .longDouble(-1) }
      return .longDouble(value / 4)
    }
    try install("half:", half.unsafeBlock)
    let vector = try DynamicBlock(signature: "{?=ddd}@ddd") { arguments in
      .aggregate([arguments[3], arguments[2], arguments[1]])
    }
    try install("vectorWith:::", vector.unsafeBlock)
    let range = try DynamicBlock(signature: "{_NSRange=QQ}@QQ") { arguments in
      .aggregate([arguments[2], arguments[1]])
    }
    try install("rangeFrom:length:", range.unsafeBlock)
    return try builder.register()
  }

  @Test func aMadeClassAnswersCompiledSenders() throws {
    let calculator = try Self.makeCalculator()
    let instance = try calculator.makeInstance()
    let object = instance.pointer
    let everyType = try ObjCProtocol(named: "BSEveryType")
    #expect(calculator.conforms(to: everyType))
    #expect(calculator.instanceVariableOffset("total") != nil)

    let add = try OracleFixture.function(
      "oracle_add", as: (@convention(c) (UnsafeRawPointer, Int32, Int32) -> Int32).self)
    #expect(add(object, 4, 2) == 42)
    let scale = try OracleFixture.function(
      "oracle_scale", as: (@convention(c) (UnsafeRawPointer, Double, Float) -> Double).self)
    #expect(scale(object, 2.5, 4) == 11)
    let isEven = try OracleFixture.function(
      "oracle_is_even", as: (@convention(c) (UnsafeRawPointer, Int) -> UInt8).self)
    #expect(isEven(object, 6) == 1 && isEven(object, 7) == 0)
    let selector = try OracleFixture.function(
      "oracle_selector", as: (@convention(c) (UnsafeRawPointer, UnsafePointer<CChar>) -> UnsafeRawPointer).self)
    #expect(Selector(selector(object, "count")).name == "countTwice")
    let classOf = try OracleFixture.function(
      "oracle_class_of", as: (@convention(c) (UnsafeRawPointer, UnsafeRawPointer) -> UnsafeRawPointer).self)
    #expect(try classOf(object, object) == ObjCClass(named: "NSObject").pointer)
    let low = try OracleFixture.function("oracle_low", as: (@convention(c) (UnsafeRawPointer, UInt16) -> UInt8).self)
    #expect(low(object, 0xAB12) == 0xAB)
    let pick = try OracleFixture.function(
      "oracle_pick",
      as: (@convention(c) (UnsafeRawPointer, UnsafeRawPointer?, UnsafeRawPointer?, UInt8) -> UnsafeRawPointer?).self)
    let a = UnsafeRawPointer(bitPattern: 0x1000)!, b = UnsafeRawPointer(bitPattern: 0x2000)!
    #expect(pick(object, a, b, 1) == b && pick(object, a, b, 0) == a)
    let half = try OracleFixture.function(
      "oracle_half_out", as: (@convention(c) (UnsafeRawPointer, Float80, UnsafeMutablePointer<Float80>) -> Void).self)
    var quarter: Float80 = 0
    half(object, 10, &quarter)
    #expect(quarter == 2.5)
    let vector = try OracleFixture.function(
      "oracle_vector_out",
      as: (@convention(c) (UnsafeRawPointer, Double, Double, Double, UnsafeMutablePointer<Double>) -> Void).self)
    var reversed: [Double] = [0, 0, 0]
    vector(object, 1, 2, 3, &reversed)
    #expect(reversed == [3, 2, 1])
    let range = try OracleFixture.function(
      "oracle_range", as: (@convention(c) (UnsafeRawPointer, UInt, UInt, UnsafeMutablePointer<UInt>) -> Void).self)
    var swapped: [UInt] = [0, 0]
    range(object, 5, 9, &swapped)
    #expect(swapped == [9, 5])
    // This layer's sends reach the same blocks.
    #expect(try instance.send("add:to:", .signed(1), .signed(2)) == .signed(12))
    #expect(
      try instance.send("rangeFrom:length:", .unsigned(1), .unsigned(2)) == .aggregate([.unsigned(2), .unsigned(1)]))
  }

  @Test func aBlockThatDoesNotFitIsRefusedWithTheCheckersDiagnostics() throws {
    let builder = try ObjCClassBuilder(name: Self.uniqueName("BSRefusing"), superclass: ObjCClass(named: "NSObject"))
    let wrong: @convention(block) (Object, Double) -> Double = { _, x in x }
    let error = #expect(throws: ObjCError.self) {
      try builder.addMethod("add:to:", types: "i24@0:8i16i20", block: unsafeBitCast(wrong, to: UnsafeRawPointer.self))
    }
    #expect(error?.kind == .incompatibleSignature)
    #expect(error?.diagnostics.contains { $0.severity == .error } == true)
    #expect(builder.objcClass.methods.isEmpty)
    let notAMethod = #expect(throws: ObjCError.self) {
      try BlockMethodImplementation(block: unsafeBitCast(wrong, to: UnsafeRawPointer.self), types: "d16@?0d8")
    }
    #expect(notAMethod?.kind == .invalidSignature)
  }

  @Test func gnustepClassesTakeBlockMethodsForPerformSelectorAndSorting() throws {
    try ObjCRuntime.withAutoreleasePool {
      let stringClass = try ObjCClass(named: "NSString")
      let compareTypes = try #require(stringClass.instanceMethod("compare:")).typeEncoding
      let byLength: @convention(block) (Object, Object) -> Int = { text, other in
        let lengths = [text, other].map { object -> Int in
          guard
            case .unsigned(let length) = (try? ObjCMessage("length", class: ObjCClass(of: object!)))
              .flatMap({ try? $0.send(to: object, []) }) ?? .void
          else { return -1 }
          return Int(length)
        }
        return lengths[0] < lengths[1] ? -1 : lengths[0] > lengths[1] ? 1 : 0
      }
      let compareSelector = Selector(Self.uniqueName("bs_compareByLength") + ":")
      try stringClass.addMethod(
        compareSelector, types: compareTypes, block: unsafeBitCast(byLength, to: UnsafeRawPointer.self))
      let words = try ["ccc", "a", "dddd", "bb"].map { try ObjCObject(string: $0) }
      let array = try #require(
        try words.withUnsafeBufferPointer { buffer in
          try words.map(\.pointer).withUnsafeBufferPointer { pointers in
            _ = buffer
            return try ObjCClass(named: "NSArray").sendForObject(
              "arrayWithObjects:count:", .pointer(UInt(bitPattern: pointers.baseAddress)),
              .unsigned(UInt128(pointers.count)))
          }
        })
      let sorted = try OracleFixture.function(
        "oracle_sorted", as: (@convention(c) (UnsafeRawPointer, UnsafeRawPointer) -> UnsafeRawPointer).self)
      let compiledSort = try ObjCObject(retaining: sorted(array.pointer, compareSelector.pointer))
      let throughThisLayer = try #require(
        try array.sendForObject("sortedArrayUsingSelector:", .selector(compareSelector)))
      for result in [compiledSort, throughThisLayer] {
        let texts = try (0..<4).map { index in
          try #require(try result.sendForObject("objectAtIndex:", .unsigned(UInt128(index)))).stringValue()
        }
        #expect(texts == ["a", "bb", "ccc", "dddd"])
      }
      // performSelector:withObject: from compiled code, and through this layer.
      let echo: @convention(block) (Object, Object) -> UnsafeRawPointer? = { _, argument in argument }
      let echoSelector = Selector(Self.uniqueName("bs_echo") + ":")
      try stringClass.addMethod(
        echoSelector, types: "@24@0:8@16", block: unsafeBitCast(echo, to: UnsafeRawPointer.self))
      let perform = try OracleFixture.function(
        "oracle_perform",
        as: (@convention(c) (UnsafeRawPointer, UnsafeRawPointer, UnsafeRawPointer?) -> UnsafeRawPointer?).self)
      #expect(perform(words[0].pointer, echoSelector.pointer, words[1].pointer) == words[1].pointer)
      #expect(
        try words[0].send("performSelector:withObject:", .selector(echoSelector), .object(words[2]))
          == .object(words[2]))
    }
  }

  @Test func replacingAndRestoringReleasesTheBlockExactlyThen() throws {
    let base = try ObjCClass(named: "BSOracleTarget")
    let child = try ObjCClassBuilder(name: Self.uniqueName("BSOracleChild"), superclass: base).register()
    let instance = try child.makeInstance()
    let add = try OracleFixture.function(
      "oracle_add", as: (@convention(c) (UnsafeRawPointer, Int32, Int32) -> Int32).self)
    let counter = LifetimeCounter()
    var replacement: MethodReplacement?
    do {
      let token = counter.token()
      let product = try DynamicBlock(signature: "i@ii") { arguments in
        _ = token
        guard case .signed(let a) = arguments[1], case .signed(let b) = arguments[2] else { return .signed(0) }
        return .signed(a * b)
      }
      replacement = try child.replaceMethod("add:to:", block: product.unsafeBlock)
    }
    #expect(add(instance.pointer, 6, 7) == 42)
    #expect(counter.count == 0)
    replacement?.restore()
    #expect(add(instance.pointer, 6, 7) == 13)
    #expect(counter.count == 1)
    #expect(replacement?.isActive == false)
    let baseInstance = try base.makeInstance()
    #expect(add(baseInstance.pointer, 6, 7) == 13)
  }

  @Test func aReplacementCallsThroughToThePreviousImplementation() throws {
    let base = try ObjCClass(named: "BSOracleTarget")
    let child = try ObjCClassBuilder(name: Self.uniqueName("BSWrappedChild"), superclass: base).register()
    let message = try ObjCMessage("add:to:", class: child)
    let previous = Locked<UInt>(0)
    let doubled = try DynamicBlock(signature: "i@ii") { arguments in
      guard case .pointer(let this) = arguments[0], let receiver = UnsafeRawPointer(bitPattern: this),
        let original = UnsafeRawPointer(bitPattern: previous.withLock { $0 })
      else { return .signed(-1) }
      let sum = try message.send(to: receiver, implementation: original, Array(arguments[1...]))
      guard case .signed(let value) = sum else { return .signed(-2) }
      return .signed(value * 2)
    }
    let replacement = try doubled.withBlock { block throws(ObjCError) in
      try child.replaceMethod("add:to:", block: block)
    }
    previous.withLock { $0 = UInt(bitPattern: replacement.previousImplementation) }
    let instance = try child.makeInstance()
    let add = try OracleFixture.function(
      "oracle_add", as: (@convention(c) (UnsafeRawPointer, Int32, Int32) -> Int32).self)
    #expect(add(instance.pointer, 20, 1) == 42)
    #expect(try instance.send("add:to:", .signed(2), .signed(3)) == .signed(10))
    replacement.restore()
    #expect(add(instance.pointer, 20, 1) == 21)
  }

  @Test func implementationsFromBlocksAreHeldUntilRemoved() throws {
    let counter = LifetimeCounter()
    let implementation: UnsafeRawPointer
    let madeBlock: UnsafeRawPointer
    do {
      let token = counter.token()
      let block = try DynamicBlock(signature: "q@q") { arguments in
        _ = token
        guard case .signed(let value) = arguments[1] else { return .signed(0) }
        return .signed(value + 1)
      }
      madeBlock = block.unsafeBlock
      implementation = try ObjCRuntime.implementation(withBlock: block.unsafeBlock, types: "q24@0:8q16")
    }
    #expect(counter.count == 0)
    // The implementation's copy of a heap block is the same block, one reference more.
    #expect(ObjCRuntime.block(forImplementation: implementation) == madeBlock)
    let call = unsafeBitCast(
      implementation, to: (@convention(c) (UnsafeRawPointer?, UnsafeRawPointer?, Int) -> Int).self)
    #expect(call(nil, nil, 41) == 42)
    #expect(ObjCRuntime.removeBlock(forImplementation: implementation))
    #expect(counter.count == 1)
    #expect(ObjCRuntime.block(forImplementation: implementation) == nil)
    #expect(!ObjCRuntime.removeBlock(forImplementation: implementation))
  }

  @Test func anExceptionInsideABlockFollowsTheFailurePolicy() throws {
    let raising = try OracleFixture.function("oracle_raising_block", as: (@convention(c) () -> UnsafeRawPointer).self)()
    let seen = Locked<[String]>([])
    let builder = try ObjCClassBuilder(name: Self.uniqueName("BSRaising"), superclass: ObjCClass(named: "NSObject"))
    try builder.addMethod(
      "bs_raise", types: "v16@0:8", block: raising,
      failure: .returnZero.reporting { error in
        seen.withLock { $0.append((error as? ObjCError)?.exceptionName ?? "\(error)") }
      })
    let instance = try builder.register().makeInstance()
    try ObjCRuntime.withAutoreleasePool {
      #expect(try instance.send("bs_raise") == .void)
      let sendRaise = try OracleFixture.function(
        "oracle_send_raise", as: (@convention(c) (UnsafeRawPointer) -> Void).self)
      sendRaise(instance.pointer)
    }
    #expect(seen.withLock { $0 } == ["BSBlockException", "BSBlockException"])
  }

  @Test func anExceptionInsideABlockStopsTheProcessByDefaultWithItsNameAndReason() async {
    let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
      try ObjCRuntime.loadFoundation()
      let raising = try OracleFixture.function(
        "oracle_raising_block", as: (@convention(c) () -> UnsafeRawPointer).self)()
      let builder = try ObjCClassBuilder(name: "BSTrapping", superclass: ObjCClass(named: "NSObject"))
      try builder.addMethod("bs_raise", types: "v16@0:8", block: raising)
      let instance = try builder.register().makeInstance()
      _ = try ObjCRuntime.withAutoreleasePool { try instance.send("bs_raise") }
    }
    let message = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
    #expect(message.contains("BSBlockException"))
    #expect(message.contains("raised inside a block for BSTrapping"))
  }

  @Test func callsFromManyThreadsAgreeWithSerialOnes() async throws {
    let instance = try Self.makeCalculator().makeInstance()
    let object = UInt(bitPattern: instance.pointer)
    let add = try OracleFixture.function(
      "oracle_add", as: (@convention(c) (UnsafeRawPointer, Int32, Int32) -> Int32).self)
    let serial = (0..<200).map { add(UnsafeRawPointer(bitPattern: object)!, Int32($0), 3) }
    let parallel = await withTaskGroup(of: (Int, Int32).self) { group in
      for index in 0..<200 {
        group.addTask {
          let add = try! OracleFixture.function(
            "oracle_add", as: (@convention(c) (UnsafeRawPointer, Int32, Int32) -> Int32).self)
          return (index, add(UnsafeRawPointer(bitPattern: object)!, Int32(index), 3))
        }
      }
      var results = [Int32](repeating: 0, count: 200)
      for await (index, value) in group { results[index] = value }
      return results
    }
    #expect(parallel == serial)
    withExtendedLifetime(instance) {}
  }
}
