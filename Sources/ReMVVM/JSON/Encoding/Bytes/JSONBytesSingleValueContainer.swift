/// The single-value container of ``JSONBytesEncoder``: writes the encoder's value in place.
struct JSONBytesSingleValueContainer: SingleValueEncodingContainer {
    let writer: JSONBytesWriter
    let handle: JSONBytesHandle

    var codingPath: [any CodingKey] { writer.state.codingPath(of: handle) }

    mutating func encodeNil() throws { try write(.null) }
    mutating func encode(_ value: Bool) throws { try write(.bool(value)) }
    mutating func encode(_ value: String) throws { try write(.string(value)) }
    mutating func encode(_ value: Double) throws { try writePrimitive(value) }
    mutating func encode(_ value: Float) throws { try writePrimitive(value) }
    mutating func encode(_ value: Int) throws { try write(.int(Int64(value))) }
    mutating func encode(_ value: Int8) throws { try write(.int(Int64(value))) }
    mutating func encode(_ value: Int16) throws { try write(.int(Int64(value))) }
    mutating func encode(_ value: Int32) throws { try write(.int(Int64(value))) }
    mutating func encode(_ value: Int64) throws { try write(.int(value)) }
    mutating func encode(_ value: UInt) throws { try writePrimitive(value) }
    mutating func encode(_ value: UInt8) throws { try write(.int(Int64(value))) }
    mutating func encode(_ value: UInt16) throws { try write(.int(Int64(value))) }
    mutating func encode(_ value: UInt32) throws { try write(.int(Int64(value))) }
    mutating func encode(_ value: UInt64) throws { try writePrimitive(value) }

    @available(macOS 15.0, iOS 18.0, watchOS 11.0, tvOS 18.0, visionOS 2.0, *)
    mutating func encode(_ value: Int128) throws { try writePrimitive(value) }

    @available(macOS 15.0, iOS 18.0, watchOS 11.0, tvOS 18.0, visionOS 2.0, *)
    mutating func encode(_ value: UInt128) throws { try writePrimitive(value) }

    mutating func encode<Value: Encodable>(_ value: Value) throws {
        try writer.encodeSingleValue(value, in: handle)
    }

    private func write(_ value: JSONValue) throws(JSONBytesUnsupported) {
        try writer.state.writeSingleValue(value, in: handle)
    }

    private func writePrimitive(_ value: some JSONPrimitiveEncodable) throws(JSONBytesUnsupported) {
        try writer.state.writeSingleValue(primitive: value, in: handle)
    }
}
