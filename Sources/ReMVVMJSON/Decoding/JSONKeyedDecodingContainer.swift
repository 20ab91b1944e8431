/// The keyed container of `JSONValueDecoder`, reading members straight out of the object's dictionary.
///
/// Like `JSONDecoder`'s, `decodeIfPresent` treats a missing member and a `null` one alike (`nil`), `decodeNil`
/// and `decode` throw `keyNotFound` for a missing one, and super decoders stand for `null` when their key is
/// missing.
struct JSONKeyedDecodingContainer<Key: CodingKey>: KeyedDecodingContainerProtocol {
    private let decoder: JSONValueDecoder
    private let members: [String: JSONValue]
    private let path: CodingPathNode

    /// Opens `value` as an object, or throws what `JSONDecoder` throws for `null` and other JSON types.
    init(decoder: JSONValueDecoder, value: JSONValue, path: CodingPathNode) throws {
        guard case .object(let members) = value else {
            throw DecodingError.container([String: Any].self, kind: "keyed", found: value, at: path)
        }
        self.decoder = decoder
        self.members = members
        self.path = path
    }

    var codingPath: [any CodingKey] { path.keys }

    /// Built on each request, because only enums with payloads and dictionaries ask for it: decoding a struct
    /// never pays for it.
    var allKeys: [Key] { members.keys.compactMap { Key(stringValue: $0) } }

    func contains(_ key: Key) -> Bool { members.index(forKey: key.stringValue) != nil }

    func decodeNil(forKey key: Key) throws -> Bool {
        if case .null = try member(key) { true } else { false }
    }

    func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool {
        try JSONValueDecoder.bool(try member(key), at: path.appending(key))
    }

    func decode(_ type: String.Type, forKey key: Key) throws -> String {
        try JSONValueDecoder.string(try member(key), at: path.appending(key))
    }

    func decode(_ type: Double.Type, forKey key: Key) throws -> Double { try floatingPoint(type, forKey: key) }
    func decode(_ type: Float.Type, forKey key: Key) throws -> Float { try floatingPoint(type, forKey: key) }
    func decode(_ type: Int.Type, forKey key: Key) throws -> Int { try integer(type, forKey: key) }
    func decode(_ type: Int8.Type, forKey key: Key) throws -> Int8 { try integer(type, forKey: key) }
    func decode(_ type: Int16.Type, forKey key: Key) throws -> Int16 { try integer(type, forKey: key) }
    func decode(_ type: Int32.Type, forKey key: Key) throws -> Int32 { try integer(type, forKey: key) }
    func decode(_ type: Int64.Type, forKey key: Key) throws -> Int64 { try integer(type, forKey: key) }
    func decode(_ type: UInt.Type, forKey key: Key) throws -> UInt { try integer(type, forKey: key) }
    func decode(_ type: UInt8.Type, forKey key: Key) throws -> UInt8 { try integer(type, forKey: key) }
    func decode(_ type: UInt16.Type, forKey key: Key) throws -> UInt16 { try integer(type, forKey: key) }
    func decode(_ type: UInt32.Type, forKey key: Key) throws -> UInt32 { try integer(type, forKey: key) }
    func decode(_ type: UInt64.Type, forKey key: Key) throws -> UInt64 { try integer(type, forKey: key) }

    @available(macOS 15.0, iOS 18.0, watchOS 11.0, tvOS 18.0, visionOS 2.0, *)
    func decode(_ type: Int128.Type, forKey key: Key) throws -> Int128 { try integer(type, forKey: key) }

    @available(macOS 15.0, iOS 18.0, watchOS 11.0, tvOS 18.0, visionOS 2.0, *)
    func decode(_ type: UInt128.Type, forKey key: Key) throws -> UInt128 { try integer(type, forKey: key) }

    func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
        try decoder.unwrap(try member(key), as: type, at: path.appending(key))
    }

    func decodeIfPresent(_ type: Bool.Type, forKey key: Key) throws -> Bool? {
        try presentMember(key).map { try JSONValueDecoder.bool($0, at: path.appending(key)) }
    }

    func decodeIfPresent(_ type: String.Type, forKey key: Key) throws -> String? {
        try presentMember(key).map { try JSONValueDecoder.string($0, at: path.appending(key)) }
    }

    func decodeIfPresent(_ type: Double.Type, forKey key: Key) throws -> Double? {
        try floatingPointIfPresent(type, forKey: key)
    }

    func decodeIfPresent(_ type: Float.Type, forKey key: Key) throws -> Float? {
        try floatingPointIfPresent(type, forKey: key)
    }

    func decodeIfPresent(_ type: Int.Type, forKey key: Key) throws -> Int? {
        try integerIfPresent(type, forKey: key)
    }

    func decodeIfPresent(_ type: Int8.Type, forKey key: Key) throws -> Int8? {
        try integerIfPresent(type, forKey: key)
    }

    func decodeIfPresent(_ type: Int16.Type, forKey key: Key) throws -> Int16? {
        try integerIfPresent(type, forKey: key)
    }

    func decodeIfPresent(_ type: Int32.Type, forKey key: Key) throws -> Int32? {
        try integerIfPresent(type, forKey: key)
    }

    func decodeIfPresent(_ type: Int64.Type, forKey key: Key) throws -> Int64? {
        try integerIfPresent(type, forKey: key)
    }

    func decodeIfPresent(_ type: UInt.Type, forKey key: Key) throws -> UInt? {
        try integerIfPresent(type, forKey: key)
    }

    func decodeIfPresent(_ type: UInt8.Type, forKey key: Key) throws -> UInt8? {
        try integerIfPresent(type, forKey: key)
    }

    func decodeIfPresent(_ type: UInt16.Type, forKey key: Key) throws -> UInt16? {
        try integerIfPresent(type, forKey: key)
    }

    func decodeIfPresent(_ type: UInt32.Type, forKey key: Key) throws -> UInt32? {
        try integerIfPresent(type, forKey: key)
    }

    func decodeIfPresent(_ type: UInt64.Type, forKey key: Key) throws -> UInt64? {
        try integerIfPresent(type, forKey: key)
    }

    func decodeIfPresent<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T? {
        try presentMember(key).map { try decoder.unwrap($0, as: type, at: path.appending(key)) }
    }

    func nestedContainer<NestedKey: CodingKey>(
        keyedBy type: NestedKey.Type,
        forKey key: Key
    ) throws -> KeyedDecodingContainer<NestedKey> {
        let nested = try JSONKeyedDecodingContainer<NestedKey>(
            decoder: decoder,
            value: try member(key),
            path: path.appending(key)
        )
        return KeyedDecodingContainer(nested)
    }

    func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
        try JSONUnkeyedDecodingContainer(decoder: decoder, value: try member(key), path: path.appending(key))
    }

    func superDecoder() throws -> any Decoder {
        let key = JSONCodingKey.super
        return decoder.superDecoder(for: members[key.stringValue] ?? .null, at: path.appending(key))
    }

    func superDecoder(forKey key: Key) throws -> any Decoder {
        decoder.superDecoder(for: members[key.stringValue] ?? .null, at: path.appending(key))
    }

    /// The member under `key`, or `keyNotFound` naming this container's path.
    private func member(_ key: Key) throws -> JSONValue {
        guard let value = members[key.stringValue] else {
            throw DecodingError.keyNotFound(
                key,
                DecodingError.Context(
                    codingPath: path.keys,
                    debugDescription: "No value associated with key \(key) (\"\(key.stringValue)\")."
                )
            )
        }
        return value
    }

    /// The member under `key`, or `nil` when it is missing or `null`.
    private func presentMember(_ key: Key) -> JSONValue? {
        switch members[key.stringValue] {
        case .none, .null?: nil
        case let value?: value
        }
    }

    @inline(__always)
    private func integer<T: FixedWidthInteger>(_ type: T.Type, forKey key: Key) throws -> T {
        try JSONValueDecoder.integer(try member(key), as: type, at: path.appending(key))
    }

    @inline(__always)
    private func integerIfPresent<T: FixedWidthInteger>(_ type: T.Type, forKey key: Key) throws -> T? {
        try presentMember(key).map { try JSONValueDecoder.integer($0, as: type, at: path.appending(key)) }
    }

    @inline(__always)
    private func floatingPoint<T: BinaryFloatingPoint>(_ type: T.Type, forKey key: Key) throws -> T {
        try JSONValueDecoder.floatingPoint(try member(key), as: type, at: path.appending(key))
    }

    @inline(__always)
    private func floatingPointIfPresent<T: BinaryFloatingPoint>(_ type: T.Type, forKey key: Key) throws -> T? {
        try presentMember(key).map { try JSONValueDecoder.floatingPoint($0, as: type, at: path.appending(key)) }
    }
}
