/// The unkeyed container of ``JSONBytesEncoder``: writes elements one after the other.
struct JSONBytesUnkeyedContainer: UnkeyedEncodingContainer, JSONValueWritingContainer {
    let writer: JSONBytesWriter
    let handle: JSONBytesHandle

    var codingPath: [any CodingKey] { writer.state.codingPath(of: handle) }

    var count: Int {
        guard writer.state.isLive(handle), case .array(let count) = writer.state.frames[handle.index].state else {
            return 0
        }
        return count
    }

    @available(macOS 15.0, iOS 18.0, watchOS 11.0, tvOS 18.0, visionOS 2.0, *)
    mutating func encode(_ value: Int128) throws { try writePrimitive(value) }

    @available(macOS 15.0, iOS 18.0, watchOS 11.0, tvOS 18.0, visionOS 2.0, *)
    mutating func encode(_ value: UInt128) throws { try writePrimitive(value) }

    mutating func encode<Value: Encodable>(_ value: Value) throws {
        try writer.encodeElement(value, in: handle)
    }

    mutating func nestedContainer<NestedKey: CodingKey>(
        keyedBy keyType: NestedKey.Type
    ) -> KeyedEncodingContainer<NestedKey> {
        KeyedEncodingContainer(JSONBytesKeyedContainer<NestedKey>(writer: writer, handle: open(.newObject)))
    }

    mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
        JSONBytesUnkeyedContainer(writer: writer, handle: open(.newArray))
    }

    mutating func superEncoder() -> any Encoder {
        JSONBytesEncoder(writer: writer, handle: open(.empty))
    }

    /// Opens a nested object, array or super encoder slot as the next element; an invalid handle if the fast
    /// path has given up, since these methods cannot throw.
    private func open(_ state: JSONBytesFrame.State) -> JSONBytesHandle {
        do throws(JSONBytesUnsupported) {
            return try writer.state.openElement(state, in: handle)
        } catch {
            return .invalid
        }
    }

    func write(_ value: JSONValue) throws(JSONBytesUnsupported) {
        try writer.state.writeElement(value, in: handle)
    }

    func writePrimitive(_ value: some JSONPrimitiveEncodable) throws(JSONBytesUnsupported) {
        try writer.state.writeElement(primitive: value, in: handle)
    }
}
