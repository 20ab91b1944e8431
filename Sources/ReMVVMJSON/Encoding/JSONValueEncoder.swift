/// The `Encoder` behind `JSONValue(encoding:)`: builds a `JSONValue` tree directly, with no bytes in between.
///
/// Where `JSONEncoder` traps on misuse (asking one encoder for two kinds of container), this encoder lets the
/// last request win instead, because a trap would take the whole server down.
///
/// Why there are two encoders: this one is the general one and defines the bytes (a tree can absorb a key
/// written twice, a container written after its parent moved on, a value that throws halfway); the byte
/// encoder (`JSONBytesEncoder`) writes the same bytes in one forward pass for the view models that need none of
/// that, nearly all of them, and hands the others to this one. Production also needs the tree itself: the
/// session-state answer embeds each view's tree, and RFC 6902 `apply` works on values.
final class JSONValueEncoder: Encoder {
    /// Where this encoder's value sits in the document.
    let path: CodingPathNode
    /// What has been encoded so far; `nil` until a container is requested.
    private(set) var result: JSONEncodingNode?

    init(path: CodingPathNode) {
        self.path = path
    }

    var codingPath: [any CodingKey] { path.keys }

    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        let box: JSONObjectBox
        if case .object(let existing) = result {
            box = existing
        } else {
            box = JSONObjectBox()
            result = .object(box)
        }
        return KeyedEncodingContainer(JSONKeyedEncodingContainer<Key>(box: box, path: path))
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        let box: JSONArrayBox
        if case .array(let existing) = result {
            box = existing
        } else {
            box = JSONArrayBox()
            result = .array(box)
        }
        return JSONUnkeyedEncodingContainer(box: box, path: path)
    }

    func singleValueContainer() -> any SingleValueEncodingContainer {
        JSONSingleValueEncodingContainer(encoder: self)
    }

    /// Records the single value this encoder stands for.
    func setValue(_ value: JSONValue) {
        result = .value(value)
    }
}

extension JSONValueEncoder {
    /// Encodes one value found at `path`: primitives directly, everything else through its `encode(to:)`.
    ///
    /// The path is an autoclosure because building it costs an allocation that only errors and nested
    /// encoders need.
    static func encode<Value: Encodable>(
        _ value: Value,
        at path: @autoclosure () -> CodingPathNode
    ) throws -> JSONValue {
        if JSONValueEncoder.isPrimitive(type(of: value)), let primitive = value as? any JSONPrimitiveEncodable {
            return try primitiveValue(primitive, at: path())
        }
        let encoder = JSONValueEncoder(path: path())
        try value.encode(to: encoder)
        return encoder.result?.finished() ?? .object([:])
    }

    /// The JSON form of a primitive, or the `EncodingError` `JSONEncoder` throws for values JSON cannot hold.
    static func primitiveValue(
        _ value: some JSONPrimitiveEncodable,
        at path: @autoclosure () -> CodingPathNode
    ) throws -> JSONValue {
        guard let json = value.primitiveJSONValue else {
            throw EncodingError.invalidValue(
                value,
                EncodingError.Context(
                    codingPath: path().keys,
                    debugDescription: "Unable to encode \(type(of: value)) \(value) directly in JSON."
                )
            )
        }
        return json
    }
}
