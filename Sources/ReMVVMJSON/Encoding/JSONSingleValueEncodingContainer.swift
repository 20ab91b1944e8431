/// The single-value container of `JSONValueEncoder`: the encoder itself stands for the value.
struct JSONSingleValueEncodingContainer: SingleValueEncodingContainer, JSONValueWritingContainer {
    let encoder: JSONValueEncoder

    var codingPath: [any CodingKey] { encoder.codingPath }

    @available(macOS 15.0, iOS 18.0, watchOS 11.0, tvOS 18.0, visionOS 2.0, *)
    mutating func encode(_ value: Int128) throws { try writePrimitive(value) }

    @available(macOS 15.0, iOS 18.0, watchOS 11.0, tvOS 18.0, visionOS 2.0, *)
    mutating func encode(_ value: UInt128) throws { try writePrimitive(value) }

    mutating func encode<Value: Encodable>(_ value: Value) throws {
        encoder.setValue(try JSONValueEncoder.encode(value, at: encoder.path))
    }

    func write(_ value: JSONValue) {
        encoder.setValue(value)
    }

    func writePrimitive(_ value: some JSONPrimitiveEncodable) throws {
        encoder.setValue(try JSONValueEncoder.primitiveValue(value, at: encoder.path))
    }
}
