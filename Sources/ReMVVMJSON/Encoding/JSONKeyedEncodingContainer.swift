/// The keyed container of `JSONValueEncoder`, writing members into a shared `JSONObjectBox`.
///
/// `encodeIfPresent` keeps the standard library's default, which skips `nil`: that is how synthesized
/// `Codable` omits nil optionals, exactly as with `JSONEncoder`.
struct JSONKeyedEncodingContainer<Key: CodingKey>: JSONValueWritingKeyedContainer {
    let box: JSONObjectBox
    let path: CodingPathNode

    var codingPath: [any CodingKey] { path.keys }

    @available(macOS 15.0, iOS 18.0, watchOS 11.0, tvOS 18.0, visionOS 2.0, *)
    mutating func encode(_ value: Int128, forKey key: Key) throws { try writePrimitive(value, forKey: key) }

    @available(macOS 15.0, iOS 18.0, watchOS 11.0, tvOS 18.0, visionOS 2.0, *)
    mutating func encode(_ value: UInt128, forKey key: Key) throws { try writePrimitive(value, forKey: key) }

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

    func write(_ value: JSONValue, forKey key: Key) {
        box.set(value, forKey: key.stringValue)
    }

    func writePrimitive(_ value: some JSONPrimitiveEncodable, forKey key: Key) throws {
        box.set(try JSONValueEncoder.primitiveValue(value, at: path.appending(key)), forKey: key.stringValue)
    }
}
