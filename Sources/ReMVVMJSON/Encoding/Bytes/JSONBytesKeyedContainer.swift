/// The keyed container of ``JSONBytesEncoder``: writes members in the order they come and leaves sorting them
/// to the writer when the object closes.
///
/// `encodeIfPresent` keeps the standard library's default, which skips `nil`, as in the tree encoder.
struct JSONBytesKeyedContainer<Key: CodingKey>: JSONValueWritingKeyedContainer {
    let writer: JSONBytesWriter
    let handle: JSONBytesHandle

    var codingPath: [any CodingKey] { writer.state.codingPath(of: handle) }

    @available(macOS 15.0, iOS 18.0, watchOS 11.0, tvOS 18.0, visionOS 2.0, *)
    mutating func encode(_ value: Int128, forKey key: Key) throws { try writePrimitive(value, forKey: key) }

    @available(macOS 15.0, iOS 18.0, watchOS 11.0, tvOS 18.0, visionOS 2.0, *)
    mutating func encode(_ value: UInt128, forKey key: Key) throws { try writePrimitive(value, forKey: key) }

    mutating func encode<Value: Encodable>(_ value: Value, forKey key: Key) throws {
        try writer.encodeMember(value, forKey: key.stringValue, path: .key(key), in: handle)
    }

    mutating func nestedContainer<NestedKey: CodingKey>(
        keyedBy keyType: NestedKey.Type,
        forKey key: Key
    ) -> KeyedEncodingContainer<NestedKey> {
        KeyedEncodingContainer(
            JSONBytesKeyedContainer<NestedKey>(writer: writer, handle: open(.newObject, forKey: key)))
    }

    mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
        JSONBytesUnkeyedContainer(writer: writer, handle: open(.newArray, forKey: key))
    }

    mutating func superEncoder() -> any Encoder {
        JSONBytesEncoder(writer: writer, handle: open(.empty, named: JSONCodingKey.super.stringValue, path: .superKey))
    }

    mutating func superEncoder(forKey key: Key) -> any Encoder {
        JSONBytesEncoder(writer: writer, handle: open(.empty, forKey: key))
    }

    private func open(_ state: JSONBytesFrame.State, forKey key: Key) -> JSONBytesHandle {
        open(state, named: key.stringValue, path: .key(key))
    }

    /// Opens a nested object, array or super encoder slot under `name`; an invalid handle if the fast path has
    /// given up, since these methods cannot throw.
    private func open(_ state: JSONBytesFrame.State, named name: String, path: JSONBytesPathComponent)
        -> JSONBytesHandle
    {
        do throws(JSONBytesUnsupported) {
            return try writer.state.openMember(name, state, path: path, in: handle)
        } catch {
            return .invalid
        }
    }

    func write(_ value: JSONValue, forKey key: Key) throws(JSONBytesUnsupported) {
        try writer.state.writeMember(key.stringValue, value, in: handle)
    }

    func writePrimitive(_ value: some JSONPrimitiveEncodable, forKey key: Key) throws(JSONBytesUnsupported) {
        try writer.state.writeMember(key.stringValue, primitive: value, in: handle)
    }
}
