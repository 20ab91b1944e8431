extension JSONValue {
    /// Encodes any `Encodable` straight into a `JSONValue`, skipping the bytes `JSONEncoder` would write and the
    /// parse back, because projections are encoded once per changed view per store version.
    ///
    /// The result is what parsing `JSONEncoder`'s output would give, number for number (see
    /// ``isEquivalent(to:)``), with these conventions:
    /// - nil optionals in keyed containers are omitted (synthesized `encodeIfPresent`); a top-level or array
    ///   `nil` is `null`;
    /// - dictionaries with `String` or `Int` keys become objects (`Int` keys as decimal strings), other keys an
    ///   array of alternating keys and values, all as `Dictionary`'s own `Encodable` conformance decides;
    /// - `Date` is seconds since 1970 as a double (`JSONEncoder`'s `.secondsSince1970`, not its default, which
    ///   counts from 2001), `URL` its absolute string, `Data` base64, `Decimal` a number;
    /// - integral `Double`s stay `.double` (`JSONEncoder` writes `2.0` as `2`, which parses as `.int`);
    ///   unsigned integers above `Int64.max` become `.double`, as their digits would parse.
    ///
    /// - Throws: `EncodingError.invalidValue` for NaN and infinite numbers, and for a top-level value that
    ///   encodes nothing, like `JSONEncoder`; any error the value's own `encode(to:)` throws.
    public init(encoding value: some Encodable) throws {
        if JSONValueEncoder.isPrimitive(type(of: value)), let primitive = value as? any JSONPrimitiveEncodable {
            self = try JSONValueEncoder.primitiveValue(primitive, at: .root)
            return
        }
        let encoder = JSONValueEncoder(path: .root)
        try value.encode(to: encoder)
        guard let result = encoder.result else {
            throw EncodingError.invalidValue(
                value,
                EncodingError.Context(
                    codingPath: [],
                    debugDescription: "Top-level \(type(of: value)) did not encode any values."
                )
            )
        }
        self = result.finished()
    }
}
