/// The keyed container of `JSONValueEncoder`, writing members into a shared `JSONObjectBox`.
///
/// `encodeIfPresent` keeps the standard library's default, which skips `nil`: that is how synthesized
/// `Codable` omits nil optionals, exactly as with `JSONEncoder`.
struct JSONKeyedEncodingContainer<Key: CodingKey>: KeyedEncodingContainerProtocol {
    let box: JSONObjectBox
    let path: CodingPathNode

    var codingPath: [any CodingKey] { path.keys }

    mutating func encodeNil(forKey key: Key) throws { box.set(.null, forKey: key.stringValue) }
    mutating func encode(_ value: Bool, forKey key: Key) throws { box.set(.bool(value), forKey: key.stringValue) }
    mutating func encode(_ value: String, forKey key: Key) throws { box.set(.string(value), forKey: key.stringValue) }
    mutating func encode(_ value: Double, forKey key: Key) throws { try encodePrimitive(value, forKey: key) }
    mutating func encode(_ value: Float, forKey key: Key) throws { try encodePrimitive(value, forKey: key) }
    mutating func encode(_ value: Int, forKey key: Key) throws { box.set(.int(Int64(value)), forKey: key.stringValue) }
    mutating func encode(_ value: Int8, forKey key: Key) throws { try encodePrimitive(value, forKey: key) }
    mutating func encode(_ value: Int16, forKey key: Key) throws { try encodePrimitive(value, forKey: key) }
    mutating func encode(_ value: Int32, forKey key: Key) throws { try encodePrimitive(value, forKey: key) }
    mutating func encode(_ value: Int64, forKey key: Key) throws { box.set(.int(value), forKey: key.stringValue) }
    mutating func encode(_ value: UInt, forKey key: Key) throws { try encodePrimitive(value, forKey: key) }
    mutating func encode(_ value: UInt8, forKey key: Key) throws { try encodePrimitive(value, forKey: key) }
    mutating func encode(_ value: UInt16, forKey key: Key) throws { try encodePrimitive(value, forKey: key) }
    mutating func encode(_ value: UInt32, forKey key: Key) throws { try encodePrimitive(value, forKey: key) }
    mutating func encode(_ value: UInt64, forKey key: Key) throws { try encodePrimitive(value, forKey: key) }

    @available(macOS 15.0, iOS 18.0, watchOS 11.0, tvOS 18.0, visionOS 2.0, *)
    mutating func encode(_ value: Int128, forKey key: Key) throws { try encodePrimitive(value, forKey: key) }

    @available(macOS 15.0, iOS 18.0, watchOS 11.0, tvOS 18.0, visionOS 2.0, *)
    mutating func encode(_ value: UInt128, forKey key: Key) throws { try encodePrimitive(value, forKey: key) }

    mutating func encode<Value: Encodable>(_ value: Value, forKey key: Key) throws {
        box.set(try JSONValueEncoder.encode(value, at: path.appending(key)), forKey: key.stringValue)
    }

    mutating func nestedContainer<NestedKey: CodingKey>(
        keyedBy keyType: NestedKey.Type,
        forKey key: Key
    ) -> KeyedEncodingContainer<NestedKey> {
        let nested: JSONObjectBox
        if let existing = box.pendingObject(forKey: key.stringValue) {
            nested = existing
        } else {
            nested = JSONObjectBox()
            box.setPending(.object(nested), forKey: key.stringValue)
        }
        return KeyedEncodingContainer(JSONKeyedEncodingContainer<NestedKey>(box: nested, path: path.appending(key)))
    }

    mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
        let nested = JSONArrayBox()
        box.setPending(.array(nested), forKey: key.stringValue)
        return JSONUnkeyedEncodingContainer(box: nested, path: path.appending(key))
    }

    mutating func superEncoder() -> any Encoder {
        superEncoder(for: JSONCodingKey.super)
    }

    mutating func superEncoder(forKey key: Key) -> any Encoder {
        superEncoder(for: key)
    }

    private func superEncoder(for key: any CodingKey) -> any Encoder {
        let encoder = JSONValueEncoder(path: path.appending(key))
        box.setPending(.encoder(encoder), forKey: key.stringValue)
        return encoder
    }

    private func encodePrimitive(_ value: some JSONPrimitiveEncodable, forKey key: Key) throws {
        box.set(try JSONValueEncoder.primitiveValue(value, at: path.appending(key)), forKey: key.stringValue)
    }
}
