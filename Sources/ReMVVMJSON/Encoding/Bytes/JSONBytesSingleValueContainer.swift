/// The single-value container of ``JSONBytesEncoder``: writes the encoder's value in place.
struct JSONBytesSingleValueContainer: SingleValueEncodingContainer, JSONValueWritingContainer {
    let writer: JSONBytesWriter
    let handle: JSONBytesHandle

    var codingPath: [any CodingKey] { writer.state.codingPath(of: handle) }

    @available(macOS 15.0, iOS 18.0, watchOS 11.0, tvOS 18.0, visionOS 2.0, *)
    mutating func encode(_ value: Int128) throws { try writePrimitive(value) }

    @available(macOS 15.0, iOS 18.0, watchOS 11.0, tvOS 18.0, visionOS 2.0, *)
    mutating func encode(_ value: UInt128) throws { try writePrimitive(value) }

    mutating func encode<Value: Encodable>(_ value: Value) throws {
        try writer.encodeSingleValue(value, in: handle)
    }

    func write(_ value: JSONValue) throws(JSONBytesUnsupported) {
        try writer.state.writeSingleValue(value, in: handle)
    }

    func writePrimitive(_ value: some JSONPrimitiveEncodable) throws(JSONBytesUnsupported) {
        try writer.state.writeSingleValue(primitive: value, in: handle)
    }
}
