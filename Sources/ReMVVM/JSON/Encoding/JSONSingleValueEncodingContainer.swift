/// The single-value container of `JSONValueEncoder`: the encoder itself stands for the value.
struct JSONSingleValueEncodingContainer: SingleValueEncodingContainer {
    let encoder: JSONValueEncoder

    var codingPath: [any CodingKey] { encoder.codingPath }

    mutating func encodeNil() throws { encoder.setValue(.null) }
    mutating func encode(_ value: Bool) throws { encoder.setValue(.bool(value)) }
    mutating func encode(_ value: String) throws { encoder.setValue(.string(value)) }
    mutating func encode(_ value: Double) throws { try encodePrimitive(value) }
    mutating func encode(_ value: Float) throws { try encodePrimitive(value) }
    mutating func encode(_ value: Int) throws { encoder.setValue(.int(Int64(value))) }
    mutating func encode(_ value: Int8) throws { encoder.setValue(.int(Int64(value))) }
    mutating func encode(_ value: Int16) throws { encoder.setValue(.int(Int64(value))) }
    mutating func encode(_ value: Int32) throws { encoder.setValue(.int(Int64(value))) }
    mutating func encode(_ value: Int64) throws { encoder.setValue(.int(value)) }
    mutating func encode(_ value: UInt) throws { try encodePrimitive(value) }
    mutating func encode(_ value: UInt8) throws { encoder.setValue(.int(Int64(value))) }
    mutating func encode(_ value: UInt16) throws { encoder.setValue(.int(Int64(value))) }
    mutating func encode(_ value: UInt32) throws { encoder.setValue(.int(Int64(value))) }
    mutating func encode(_ value: UInt64) throws { try encodePrimitive(value) }

    @available(macOS 15.0, iOS 18.0, watchOS 11.0, tvOS 18.0, visionOS 2.0, *)
    mutating func encode(_ value: Int128) throws { try encodePrimitive(value) }

    @available(macOS 15.0, iOS 18.0, watchOS 11.0, tvOS 18.0, visionOS 2.0, *)
    mutating func encode(_ value: UInt128) throws { try encodePrimitive(value) }

    mutating func encode<Value: Encodable>(_ value: Value) throws {
        encoder.setValue(try JSONValueEncoder.encode(value, at: encoder.path))
    }

    private func encodePrimitive(_ value: some JSONPrimitiveEncodable) throws {
        encoder.setValue(try JSONValueEncoder.primitiveValue(value, at: encoder.path))
    }
}
