import BlockSignature
import BlockSignatureFFI
import BlockSignatureObjC
import Foundation
import Testing

/// Messages sent through their type encodings, compared with the same messages sent from
/// Objective-C compiled by gcc: to a compiled class with a method of each type family, and to
/// GNUstep's own classes.
@Suite struct MessageSendingTests {
  let target: ObjCObject

  init() throws {
    try ObjCRuntime.loadFoundation()
    let make = try OracleFixture.function("oracle_target", as: (@convention(c) () -> UnsafeRawPointer).self)
    target = ObjCObject(adopting: make())
  }

  @Test func scalarsAgreeWithCompiledSends() throws {
    let add = try OracleFixture.function(
      "oracle_add", as: (@convention(c) (UnsafeRawPointer, Int32, Int32) -> Int32).self)
    #expect(try target.send("add:to:", .signed(-40), .signed(2)) == .signed(Int128(add(target.pointer, -40, 2))))
    let scale = try OracleFixture.function(
      "oracle_scale", as: (@convention(c) (UnsafeRawPointer, Double, Float) -> Double).self)
    #expect(try target.send("scale:by:", .double(2.5), .float(-1.25)) == .double(scale(target.pointer, 2.5, -1.25)))
    let isEven = try OracleFixture.function(
      "oracle_is_even", as: (@convention(c) (UnsafeRawPointer, Int) -> UInt8).self)
    for value in [-3, 0, 7, 1 << 40] {
      #expect(try target.send("isEven:", .signed(Int128(value))) == .unsigned(UInt128(isEven(target.pointer, value))))
    }
    let low = try OracleFixture.function("oracle_low", as: (@convention(c) (UnsafeRawPointer, UInt16) -> UInt8).self)
    #expect(try target.send("low:", .unsigned(0x1234)) == .unsigned(UInt128(low(target.pointer, 0x1234))))
  }

  @Test func longDoubleAndStructuresAgreeWithCompiledSends() throws {
    #expect(try target.send("half:", .longDouble(3)) == .longDouble(1.5))
    let vector = try target.send("vectorWith:::", .double(1), .double(-2), .double(0.5))
    #expect(vector == .aggregate([.double(1), .double(-2), .double(0.5)]))
    #expect(
      try target.send("rangeFrom:length:", .unsigned(3), .unsigned(9)) == .aggregate([.unsigned(3), .unsigned(9)]))
    // The runtime's types say where each member goes: the compiled method's own encoding.
    let method = try #require(target.objectClass.instanceMethod("rangeFrom:length:"))
    #expect(method.typeEncoding.hasPrefix("{_NSRange=QQ}"))
  }

  @Test func selectorsClassesAndStringsAgreeWithCompiledSends() throws {
    let selector = try OracleFixture.function(
      "oracle_selector", as: (@convention(c) (UnsafeRawPointer, UnsafePointer<CChar>) -> UnsafeRawPointer).self)
    let sent = try target.send("selectorNamed:", .string("compare:"))
    guard case .pointer(let address) = sent, let pointer = UnsafeRawPointer(bitPattern: address) else {
      Issue.record("selectorNamed: returned \(sent)")
      return
    }
    #expect(Selector(pointer).name == Selector(selector(target.pointer, "compare:")).name)
    let classOf = try OracleFixture.function(
      "oracle_class_of", as: (@convention(c) (UnsafeRawPointer, UnsafeRawPointer) -> UnsafeRawPointer).self)
    try ObjCRuntime.withAutoreleasePool {
      let text = try ObjCObject(string: "x")
      #expect(
        try target.send("classOf:", .object(text)) == .pointer(UInt(bitPattern: classOf(target.pointer, text.pointer))))
    }
    let stringClass = try ObjCClass(named: "NSString")
    #expect(try target.send("nameOf:", .objcClass(stringClass)) == .string("NSString"))
    try ObjCRuntime.withAutoreleasePool {
      let first = try ObjCObject(string: "first"), second = try ObjCObject(string: "second")
      #expect(try target.send("pick:or:first:", .object(first), .object(second), .unsigned(0)) == .object(second))
      #expect(try target.send("pick:or:first:", .object(first), .object(second), .unsigned(1)) == .object(first))
    }
  }

  @Test func gnustepClassesAgreeWithCompiledSends() throws {
    try ObjCRuntime.withAutoreleasePool {
      let text = try ObjCObject(string: "héllo, wörld, 12.5")
      let comma = try ObjCObject(string: ", ")
      let rangeOfString = try OracleFixture.function(
        "oracle_range_of_string",
        as: (@convention(c) (UnsafeRawPointer, UnsafeRawPointer, UnsafeMutablePointer<UInt>) -> Void).self)
      var compiled: [UInt] = [0, 0]
      rangeOfString(text.pointer, comma.pointer, &compiled)
      #expect(
        try text.send("rangeOfString:", .object(comma)) == .aggregate(compiled.map { .unsigned(UInt128($0)) }))
      // An argument made in place outlives the send (it is autoreleased).
      #expect(
        try text.send("rangeOfString:", .object(ObjCObject(string: ", ")))
          == .aggregate(compiled.map { .unsigned(UInt128($0)) }))
      let number = try ObjCObject(string: "12.5e-3")
      let doubleValue = try OracleFixture.function(
        "oracle_double_value", as: (@convention(c) (UnsafeRawPointer) -> Double).self)
      #expect(try number.send("doubleValue") == .double(doubleValue(number.pointer)))
      let prefix = try ObjCObject(string: "hé")
      let hasPrefix = try OracleFixture.function(
        "oracle_has_prefix", as: (@convention(c) (UnsafeRawPointer, UnsafeRawPointer) -> UInt8).self)
      #expect(
        try text.send("hasPrefix:", .object(prefix)) == .unsigned(UInt128(hasPrefix(text.pointer, prefix.pointer))))
      let responds = try OracleFixture.function(
        "oracle_responds", as: (@convention(c) (UnsafeRawPointer, UnsafeRawPointer) -> UInt8).self)
      for name in ["length", "noSuchMethod:"] {
        let selector = Selector(name)
        #expect(
          try text.send("respondsToSelector:", .selector(selector))
            == .unsigned(UInt128(responds(text.pointer, selector.pointer))))
      }
      let isKind = try OracleFixture.function(
        "oracle_is_kind", as: (@convention(c) (UnsafeRawPointer, UnsafeRawPointer) -> UInt8).self)
      for name in ["NSString", "NSArray"] {
        let objcClass = try ObjCClass(named: name)
        #expect(
          try text.send("isKindOfClass:", .objcClass(objcClass))
            == .unsigned(UInt128(isKind(text.pointer, objcClass.pointer))))
      }
      let utf8 = try OracleFixture.function(
        "oracle_utf8", as: (@convention(c) (UnsafeRawPointer) -> UnsafePointer<CChar>).self)
      #expect(try text.send("UTF8String") == .string(String(cString: utf8(text.pointer))))
      let joined = try #require(try text.sendForObject("stringByAppendingString:", .object(comma)))
      #expect(try joined.stringValue() == "héllo, wörld, 12.5, ")
    }
  }

  @Test func rawSendAllocatesNothingAndAgrees() throws {
    let message = try ObjCMessage("add:to:", class: target.objectClass)
    var a: Int32 = 40, b: Int32 = 2
    var result = (UInt64(0), UInt64(0))
    try withUnsafeMutableBytes(of: &result) { buffer in
      try withUnsafeBytes(of: &a) { first in
        try withUnsafeBytes(of: &b) { second in
          try [first.baseAddress, second.baseAddress].withUnsafeBufferPointer { arguments in
            try message.send(to: target.pointer, result: buffer.baseAddress, arguments: arguments.baseAddress!)
          }
        }
      }
    }
    #expect(Int32(truncatingIfNeeded: result.0) == 42)
  }

  @Test func nilReceiversAnswerZero() throws {
    let vector = try ObjCMessage("vectorWith:::", class: target.objectClass)
    #expect(
      try vector.send(to: nil, [.double(1), .double(2), .double(3)])
        == .aggregate([.double(0), .double(0), .double(0)]))
    let scale = try ObjCMessage("scale:by:", class: target.objectClass)
    #expect(try scale.send(to: nil, [.double(1), .float(2)]) == .double(0))
  }

  @Test func declaredTypesAreCheckedAgainstTheRuntimes() throws {
    let error = #expect(throws: ObjCError.self) {
      try ObjCMessage("add:to:", class: target.objectClass, declaredTypes: "d24@0:8d16")
    }
    #expect(error?.kind == .incompatibleSignature)
    #expect(error?.diagnostics.isEmpty == false)
    let fitting = try ObjCMessage("add:to:", class: target.objectClass, declaredTypes: "i24@0:8i16i20")
    #expect(try fitting.send(to: target.pointer, [.signed(1), .signed(2)]) == .signed(3))
  }

  @Test func exceptionsComeBackAsTypedErrors() throws {
    try ObjCRuntime.withAutoreleasePool {
      let element = try ObjCObject(string: "x")
      let array = try #require(try ObjCClass(named: "NSArray").sendForObject("arrayWithObject:", .object(element)))
      let range = #expect(throws: ObjCError.self) { try array.send("objectAtIndex:", .unsigned(5)) }
      #expect(range?.kind == .exception)
      #expect(range?.exceptionName == "NSRangeException")
      #expect(range?.exceptionReason?.contains("objectAtIndex:") == true)
      // No method, no types: refused before anything is sent.
      let unknown = #expect(throws: ObjCError.self) { try array.send("noSuchMethodAt:", .unsigned(1)) }
      #expect(unknown?.kind == .unknownSelector)
      // Sent anyway with declared types: an unknown selector still, with the exception
      // doesNotRecognizeSelector: raised.
      let declared = try ObjCMessage("noSuchMethodAt:", types: "@24@0:8Q16")
      let raised = #expect(throws: ObjCError.self) { try declared.send(to: array.pointer, [.unsigned(1)]) }
      #expect(raised?.kind == .unknownSelector)
      #expect(raised?.exceptionName == "NSInvalidArgumentException")
      #expect(raised?.message.hasPrefix("-[\(array.objectClass.name) noSuchMethodAt:]") == true)
      #expect(raised?.message.contains("sending doesNotRecognizeSelector:") == false)
    }
  }

  /// A result wrapped as an object must be one: an integer or a function pointer is refused
  /// before the message is sent, by the class, the instance and the initializer entry points.
  @Test func resultsThatAreNotObjectsAreRefusedBeforeSending() throws {
    let string = try ObjCClass(named: "NSString")
    let encoding = #expect(throws: ObjCError.self) { try string.sendForObject("defaultCStringEncoding") }
    #expect(encoding?.kind == .invalidCall)
    #expect(
      encoding?.message.hasPrefix("+[NSString defaultCStringEncoding] returns ") == true, "\(encoding?.message ?? "")")
    #expect(encoding?.message.contains("not an object") == true)
    #expect(try string.send("defaultCStringEncoding") != .void)
    let object = try ObjCClass(named: "NSObject")
    let function = #expect(throws: ObjCError.self) {
      try object.sendForObject("instanceMethodForSelector:", .selector("description"))
    }
    #expect(function?.kind == .invalidCall)
    #expect(function?.message.contains("^?") == true)
    let instance = try object.makeInstance()
    let hash = #expect(throws: ObjCError.self) { try instance.sendForObject("hash") }
    #expect(hash?.kind == .invalidCall)
    let initializer = #expect(throws: ObjCError.self) { try object.makeInstanceAllocated("hash") }
    #expect(initializer?.kind == .invalidCall)
    // Objects and classes still come back.
    try ObjCRuntime.withAutoreleasePool { () throws -> Void in
      #expect(try object.sendForObject("class") != nil)
      #expect(try instance.sendForObject("description") != nil)
    }
  }

  @Test func variadicArgumentsAndWrongCountsAreRefused() throws {
    let format = try ObjCMessage("stringWithFormat:", class: ObjCClass(named: "NSString").metaclass)
    let error = #expect(throws: ObjCError.self) { try format.send(to: nil, [.pointer(0), .signed(1)]) }
    #expect(error?.kind == .invalidCall)
    #expect(error?.message.contains("variadic") == true)
    let wrongValue = #expect(throws: ObjCError.self) { try target.send("add:to:", .string("one"), .signed(1)) }
    #expect(wrongValue?.kind == .invalidCall)
  }

  @Test func poolsAndStringsOnManyThreads() async throws {
    let texts = (0..<32).map { "thread text \($0) — é" }
    let lengths = try await withThrowingTaskGroup(of: (Int, CValue).self) { group in
      for (index, text) in texts.enumerated() {
        group.addTask {
          try ObjCRuntime.withAutoreleasePool {
            let object = try ObjCObject(string: text)
            let joined = try #require(try object.sendForObject("stringByAppendingString:", .object(object)))
            return (index, try joined.send("length"))
          }
        }
      }
      var results = [CValue](repeating: .void, count: texts.count)
      for try await (index, length) in group { results[index] = length }
      return results
    }
    #expect(lengths == texts.map { .unsigned(UInt128($0.unicodeScalars.count * 2)) })
  }

  @Test func sendsFromManyThreadsAgreeWithSerialOnes() async throws {
    let target = target
    let serial = try (0..<64).map { try target.send("add:to:", .signed(Int128($0)), .signed(1000)) }
    let parallel = try await withThrowingTaskGroup(of: (Int, CValue).self) { group in
      for index in 0..<64 {
        group.addTask { (index, try target.send("add:to:", .signed(Int128(index)), .signed(1000))) }
      }
      var results = [CValue](repeating: .void, count: 64)
      for try await (index, value) in group { results[index] = value }
      return results
    }
    #expect(parallel == serial)
  }
}
