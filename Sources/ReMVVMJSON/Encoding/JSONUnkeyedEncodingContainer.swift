/// The unkeyed container of `JSONValueEncoder`, appending elements to a shared `JSONArrayBox`.
struct JSONUnkeyedEncodingContainer: UnkeyedEncodingContainer, JSONValueWritingContainer {
    let box: JSONArrayBox
    let path: CodingPathNode

    var codingPath: [any CodingKey] { path.keys }

    var count: Int { box.count }

    @available(macOS 15.0, iOS 18.0, watchOS 11.0, tvOS 18.0, visionOS 2.0, *)
    mutating func encode(_ value: Int128) throws { try writePrimitive(value) }

    @available(macOS 15.0, iOS 18.0, watchOS 11.0, tvOS 18.0, visionOS 2.0, *)
    mutating func encode(_ value: UInt128) throws { try writePrimitive(value) }

    mutating func encode<Value: Encodable>(_ value: Value) throws {
        box.append(try JSONValueEncoder.encode(value, at: nextPath))
    }

    mutating func nestedContainer<NestedKey: CodingKey>(
        keyedBy keyType: NestedKey.Type
    ) -> KeyedEncodingContainer<NestedKey> {
        let nested = JSONObjectBox()
        let nestedPath = nextPath
        box.appendPending(.object(nested))
        return KeyedEncodingContainer(JSONKeyedEncodingContainer<NestedKey>(box: nested, path: nestedPath))
    }

    mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
        let nested = JSONArrayBox()
        let nestedPath = nextPath
        box.appendPending(.array(nested))
        return JSONUnkeyedEncodingContainer(box: nested, path: nestedPath)
    }

    mutating func superEncoder() -> any Encoder {
        let encoder = JSONValueEncoder(path: nextPath)
        box.appendPending(.encoder(encoder))
        return encoder
    }

    /// The path of the element about to be appended.
    private var nextPath: CodingPathNode {
        path.appending(JSONCodingKey(intValue: box.count))
    }

    func write(_ value: JSONValue) {
        box.append(value)
    }

    func writePrimitive(_ value: some JSONPrimitiveEncodable) throws {
        box.append(try JSONValueEncoder.primitiveValue(value, at: nextPath))
    }
}
