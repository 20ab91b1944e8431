/// The keyed container of ``JSONBytesEncoder``: writes members in the order they come and leaves sorting them
/// to the writer when the object closes.
///
/// `encodeIfPresent` keeps the standard library's default, which skips `nil`, as in the tree encoder.
struct JSONBytesKeyedContainer<Key: CodingKey>: KeyedEncodingContainerProtocol {
    let writer: JSONBytesWriter
    let handle: JSONBytesHandle

    var codingPath: [any CodingKey] { writer.codingPath(of: handle) }

    mutating func encodeNil(forKey key: Key) throws { try write(.null, forKey: key) }
    mutating func encode(_ value: Bool, forKey key: Key) throws { try write(.bool(value), forKey: key) }
    mutating func encode(_ value: String, forKey key: Key) throws { try write(.string(value), forKey: key) }
    mutating func encode(_ value: Double, forKey key: Key) throws { try writePrimitive(value, forKey: key) }
    mutating func encode(_ value: Float, forKey key: Key) throws { try writePrimitive(value, forKey: key) }
    mutating func encode(_ value: Int, forKey key: Key) throws { try write(.int(Int64(value)), forKey: key) }
    mutating func encode(_ value: Int8, forKey key: Key) throws { try writePrimitive(value, forKey: key) }
    mutating func encode(_ value: Int16, forKey key: Key) throws { try writePrimitive(value, forKey: key) }
    mutating func encode(_ value: Int32, forKey key: Key) throws { try writePrimitive(value, forKey: key) }
    mutating func encode(_ value: Int64, forKey key: Key) throws { try write(.int(value), forKey: key) }
    mutating func encode(_ value: UInt, forKey key: Key) throws { try writePrimitive(value, forKey: key) }
    mutating func encode(_ value: UInt8, forKey key: Key) throws { try writePrimitive(value, forKey: key) }
    mutating func encode(_ value: UInt16, forKey key: Key) throws { try writePrimitive(value, forKey: key) }
    mutating func encode(_ value: UInt32, forKey key: Key) throws { try writePrimitive(value, forKey: key) }
    mutating func encode(_ value: UInt64, forKey key: Key) throws { try writePrimitive(value, forKey: key) }

    @available(macOS 15.0, iOS 18.0, watchOS 11.0, tvOS 18.0, visionOS 2.0, *)
    mutating func encode(_ value: Int128, forKey key: Key) throws { try writePrimitive(value, forKey: key) }

    @available(macOS 15.0, iOS 18.0, watchOS 11.0, tvOS 18.0, visionOS 2.0, *)
    mutating func encode(_ value: UInt128, forKey key: Key) throws { try writePrimitive(value, forKey: key) }

    mutating func encode<Value: Encodable>(_ value: Value, forKey key: Key) throws {
        try writer.beginMember(key.stringValue, in: handle)
        try writer.encodeValue(value, path: .key(key))
    }

    mutating func nestedContainer<NestedKey: CodingKey>(
        keyedBy keyType: NestedKey.Type,
        forKey key: Key
    ) -> KeyedEncodingContainer<NestedKey> {
        let nested: JSONBytesHandle
        do throws(JSONBytesUnsupported) {
            try writer.beginMember(key.stringValue, in: handle)
            nested = writer.pushObject(path: .key(key))
        } catch {
            nested = .invalid
        }
        return KeyedEncodingContainer(JSONBytesKeyedContainer<NestedKey>(writer: writer, handle: nested))
    }

    mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
        let nested: JSONBytesHandle
        do throws(JSONBytesUnsupported) {
            try writer.beginMember(key.stringValue, in: handle)
            nested = writer.pushArray(path: .key(key))
        } catch {
            nested = .invalid
        }
        return JSONBytesUnkeyedContainer(writer: writer, handle: nested)
    }

    mutating func superEncoder() -> any Encoder {
        superEncoder(named: JSONCodingKey.super.stringValue, path: .superKey)
    }

    mutating func superEncoder(forKey key: Key) -> any Encoder {
        superEncoder(named: key.stringValue, path: .key(key))
    }

    /// A slot for a super encoder's value under `name`; one that writes nothing becomes `{}` when it closes.
    private func superEncoder(named name: String, path: JSONBytesPathComponent) -> any Encoder {
        let slot: JSONBytesHandle
        do throws(JSONBytesUnsupported) {
            try writer.beginMember(name, in: handle)
            slot = writer.push(.empty, path: path)
        } catch {
            slot = .invalid
        }
        return JSONBytesEncoder(writer: writer, handle: slot)
    }

    private func write(_ value: JSONValue, forKey key: Key) throws(JSONBytesUnsupported) {
        try writer.beginMember(key.stringValue, in: handle)
        writer.write(value)
    }

    private func writePrimitive(_ value: some JSONPrimitiveEncodable, forKey key: Key) throws(JSONBytesUnsupported) {
        try writer.beginMember(key.stringValue, in: handle)
        try writer.writePrimitive(value)
    }
}
