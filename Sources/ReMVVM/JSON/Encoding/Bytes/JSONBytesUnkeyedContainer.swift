/// The unkeyed container of ``JSONBytesEncoder``: writes elements one after the other.
struct JSONBytesUnkeyedContainer: UnkeyedEncodingContainer {
    let writer: JSONBytesWriter
    let handle: JSONBytesHandle

    var codingPath: [any CodingKey] { writer.codingPath(of: handle) }

    var count: Int {
        guard handle.index < writer.frames.count, writer.frames[handle.index].id == handle.id,
            case .array(let count) = writer.frames[handle.index].state
        else { return 0 }
        return count
    }

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
        let index = try writer.beginElement(in: handle)
        try writer.encodeValue(value, path: .index(index))
    }

    mutating func nestedContainer<NestedKey: CodingKey>(
        keyedBy keyType: NestedKey.Type
    ) -> KeyedEncodingContainer<NestedKey> {
        let nested: JSONBytesHandle
        do throws(JSONBytesUnsupported) {
            nested = writer.pushObject(path: .index(try writer.beginElement(in: handle)))
        } catch {
            nested = .invalid
        }
        return KeyedEncodingContainer(JSONBytesKeyedContainer<NestedKey>(writer: writer, handle: nested))
    }

    mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
        let nested: JSONBytesHandle
        do throws(JSONBytesUnsupported) {
            nested = writer.pushArray(path: .index(try writer.beginElement(in: handle)))
        } catch {
            nested = .invalid
        }
        return JSONBytesUnkeyedContainer(writer: writer, handle: nested)
    }

    mutating func superEncoder() -> any Encoder {
        let slot: JSONBytesHandle
        do throws(JSONBytesUnsupported) {
            slot = writer.push(.empty, path: .index(try writer.beginElement(in: handle)))
        } catch {
            slot = .invalid
        }
        return JSONBytesEncoder(writer: writer, handle: slot)
    }

    private func write(_ value: JSONValue) throws(JSONBytesUnsupported) {
        _ = try writer.beginElement(in: handle)
        writer.write(value)
    }

    private func writePrimitive(_ value: some JSONPrimitiveEncodable) throws(JSONBytesUnsupported) {
        _ = try writer.beginElement(in: handle)
        try writer.writePrimitive(value)
    }
}
