/// A report field written as `null` when it has no value. A synthesized `Encodable` leaves
/// out the keys of absent optionals; the report schemas list every field, so these keep them.
@propertyWrapper
struct ExplicitNull<Value: Encodable>: Encodable {
  var wrappedValue: Value?

  init(wrappedValue: Value?) {
    self.wrappedValue = wrappedValue
  }

  func encode(to encoder: any Encoder) throws {
    var container = encoder.singleValueContainer()
    if let wrappedValue {
      try container.encode(wrappedValue)
    } else {
      try container.encodeNil()
    }
  }
}
