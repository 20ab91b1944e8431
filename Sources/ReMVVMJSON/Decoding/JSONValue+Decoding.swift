extension JSONValue {
    /// Decodes a `Decodable` from this value, with `JSONDecoder`'s semantics for synthesized `Codable`, so a
    /// request body parsed once with `JSONValue(parsing:)` needs no second pass through `JSONDecoder`.
    ///
    /// Decoding follows `JSONDecoder` with its default strategies: integers accept integral numbers only
    /// (`2.0` decodes as `Int`, `2.5` does not) and must fit the type; `Float` and `Double` accept any number
    /// that does not overflow or underflow the type; `Bool` and `String` accept only booleans and strings; a
    /// missing or `null` member decodes as `nil` in `decodeIfPresent`; `Date` is seconds since 2001 (the
    /// `.deferredToDate` default, not the 1970 that ``init(encoding:)`` writes), `URL` a string, `Data` base64
    /// and `Decimal` a number. Errors are the `DecodingError` cases `JSONDecoder` throws, with the same coding
    /// paths (array elements as `Index n` keys carrying `intValue`) and descriptions.
    ///
    /// A `JSONValue` holds less than the text it was parsed from, which shows in three places:
    /// - numbers that are out of range for the requested type throw `dataCorrupted` at the member's path
    ///   ("Number 300 is not representable in Swift."), where `JSONDecoder` reports an empty path;
    /// - integers beyond `Int64` were parsed as rounded doubles, so integer types refuse numbers of magnitude
    ///   2^63 and above instead of decoding a number the client never sent, and `Decimal` gets the double's
    ///   shortest digits;
    /// - a nested `JSONValue` is returned as it is (`2.0` stays `.double`), where `JSONDecoder` would rebuild it.
    ///
    /// - Parameters:
    ///   - type: The type to decode, usually inferred.
    ///   - userInfo: What the decoded types find in `Decoder.userInfo`.
    /// - Throws: `DecodingError`, or any error a type's own `init(from:)` throws.
    public func decode<T: Decodable>(
        _ type: T.Type = T.self,
        userInfo: [CodingUserInfoKey: any Sendable] = [:]
    ) throws -> T {
        guard !userInfo.isEmpty else { return try JSONValueDecoder.decode(type, from: self) }
        // Converting to `Decoder.userInfo`'s `[CodingUserInfoKey: Any]` allocates, even for an empty dictionary.
        let anyUserInfo: [CodingUserInfoKey: Any] = userInfo
        let decoder = JSONValueDecoder(value: self, path: .root, userInfo: anyUserInfo)
        return try decoder.unwrap(self, as: type, at: .root)
    }
}

extension JSONValue {
    /// ``decode(_:userInfo:)`` with no user info, for the action registry, which decodes every payload this way:
    /// building and converting even an empty user-info dictionary cost a noticeable part of a small payload.
    public func decoded<T: Decodable>(as type: T.Type) throws -> T {
        try JSONValueDecoder.decode(type, from: self)
    }
}

extension JSONValueDecoder {
    /// Decodes `value` as `T` with no user info: ``JSONValue/decode(_:userInfo:)`` without building or
    /// converting a user-info dictionary, which cost a noticeable part of decoding a small action payload.
    static func decode<T: Decodable>(_ type: T.Type, from value: JSONValue) throws -> T {
        try JSONValueDecoder(value: value, path: .root, userInfo: [:]).unwrap(value, as: type, at: .root)
    }
}
