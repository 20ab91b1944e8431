/// The errors `JSONValueDecoder` throws, worded as `JSONDecoder` words them, so that switching decoders changes
/// no message a client sees.
extension DecodingError {
    /// `value` is not the JSON type `type` is decoded from.
    static func mismatch(_ type: Any.Type, found value: JSONValue, at path: CodingPathNode) -> DecodingError {
        .typeMismatch(
            type,
            Context(
                codingPath: path.keys,
                debugDescription: "Expected to decode \(type) but found \(describe(value)) instead."
            )
        )
    }

    /// A `null` where a value of `type` was required.
    static func null(_ type: Any.Type, at path: CodingPathNode) -> DecodingError {
        .valueNotFound(
            type,
            Context(
                codingPath: path.keys,
                debugDescription: "Cannot get value of type \(type) -- found null value instead"
            )
        )
    }

    /// A number outside the range (or, for integers, not integral) of the type it was decoded as.
    static func unrepresentable(_ value: JSONValue, at path: CodingPathNode) -> DecodingError {
        let number: String
        switch value {
        case .int(let integer): number = String(integer)
        case .double(let double): number = double.description
        default: number = describe(value)
        }
        return .dataCorrupted(
            Context(codingPath: path.keys, debugDescription: "Number \(number) is not representable in Swift.")
        )
    }

    /// A value of the right JSON type that still does not make a value of the requested type.
    static func corrupted(_ description: String, at path: CodingPathNode) -> DecodingError {
        .dataCorrupted(Context(codingPath: path.keys, debugDescription: description))
    }

    /// A container of the wrong kind (`kind` is "keyed" or "unkeyed"): `valueNotFound` for `null`,
    /// `typeMismatch` for any other JSON type.
    static func container(
        _ type: Any.Type,
        kind: String,
        found value: JSONValue,
        at path: CodingPathNode
    ) -> DecodingError {
        guard case .null = value else { return mismatch(type, found: value, at: path) }
        return .valueNotFound(
            type,
            Context(
                codingPath: path.keys,
                debugDescription: "Cannot get \(kind) decoding container -- found null value instead"
            )
        )
    }

    /// How `JSONDecoder` names a value's JSON type in its messages ("a string", "number", "bool", ...).
    private static func describe(_ value: JSONValue) -> String {
        switch value {
        case .null: "null"
        case .bool: "bool"
        case .int, .double: "number"
        case .string: "a string"
        case .array: "an array"
        case .object: "a dictionary"
        }
    }
}
