import Foundation

/// The `Decoder` behind ``JSONValue/decode(_:userInfo:)``: reads a `JSONValue` tree directly, with no bytes in
/// between.
///
/// As in `JSONDecoder`, one instance serves a whole decode: a nested value is swapped in as the current value
/// for the length of its `init(from:)` (see ``with(_:at:perform:)``) rather than given a decoder of its own.
/// Only super decoders, which the caller may keep, are separate instances. The decoder is also its own
/// single-value container.
final class JSONValueDecoder: Decoder {
    /// The value being decoded now; only ``with(_:at:perform:)`` changes it.
    private(set) var value: JSONValue
    /// Where ``value`` sits in the document.
    private(set) var path: CodingPathNode
    let userInfo: [CodingUserInfoKey: Any]

    init(value: JSONValue, path: CodingPathNode, userInfo: [CodingUserInfoKey: Any]) {
        self.value = value
        self.path = path
        self.userInfo = userInfo
    }

    var codingPath: [any CodingKey] { path.keys }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        KeyedDecodingContainer(try JSONKeyedDecodingContainer<Key>(decoder: self, value: value, path: path))
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        try JSONUnkeyedDecodingContainer(decoder: self, value: value, path: path)
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer {
        self
    }

    /// A decoder of its own for `value`, for super decoders, which may outlive the container that made them.
    func superDecoder(for value: JSONValue, at path: CodingPathNode) -> JSONValueDecoder {
        JSONValueDecoder(value: value, path: path, userInfo: userInfo)
    }

    /// Runs `body` with `value` at `path` as the current value, then puts the previous one back.
    func with<Result>(
        _ value: JSONValue,
        at path: CodingPathNode,
        perform body: () throws -> Result
    ) rethrows -> Result {
        let (outerValue, outerPath) = (self.value, self.path)
        self.value = value
        self.path = path
        defer {
            self.value = outerValue
            self.path = outerPath
        }
        return try body()
    }

    /// Decodes `value`, found at `path`, as `T`: the types `JSONDecoder` converts itself directly, everything
    /// else through its `init(from:)`.
    ///
    /// The path is an autoclosure because building it costs an allocation that only errors and nested values
    /// need.
    func unwrap<T: Decodable>(
        _ value: JSONValue,
        as type: T.Type,
        at path: @autoclosure () -> CodingPathNode
    ) throws -> T {
        if Self.isDirect(type) {
            return try unwrapDirect(value, as: type, at: path)
        }
        return try with(value, at: path()) { try T(from: self) }
    }

    /// `unwrap` for the types ``directValue(_:as:at:)`` handles; a function of its own so that `unwrap` itself
    /// needs no `Optional<T>`, whose metadata costs a runtime lookup on every call.
    @inline(never)
    private func unwrapDirect<T: Decodable>(
        _ value: JSONValue,
        as type: T.Type,
        at path: () -> CodingPathNode
    ) throws -> T {
        if let direct = try Self.directValue(value, as: type, at: path) as? T {
            return direct
        }
        return try with(value, at: path()) { try T(from: self) }
    }

    /// Whether ``directValue(_:as:at:)`` handles `type`; comparing metatypes costs next to nothing.
    private static func isDirect(_ type: any Decodable.Type) -> Bool {
        type == String.self || type == Int.self || type == Double.self || type == Bool.self
            || type == JSONValue.self || type == Int64.self || type == Float.self || type == Date.self
            || type == URL.self || type == Data.self || type == Decimal.self
    }

    /// The types read without a nested `init(from:)`. Primitives give the same results and errors their own
    /// `init(from:)` would, without setting up a nested decode; `Date`, `Data`, `URL` and `Decimal` get
    /// `JSONDecoder`'s default strategies; a `JSONValue` is returned as it is.
    private static func directValue(
        _ value: JSONValue,
        as type: any Decodable.Type,
        at path: () -> CodingPathNode
    ) throws -> Any? {
        if type == String.self { return try string(value, at: path()) }
        if type == Int.self { return try integer(value, as: Int.self, at: path()) }
        if type == Double.self { return try floatingPoint(value, as: Double.self, at: path()) }
        if type == Bool.self { return try bool(value, at: path()) }
        if type == JSONValue.self { return value }
        if type == Int64.self { return try integer(value, as: Int64.self, at: path()) }
        if type == Float.self { return try floatingPoint(value, as: Float.self, at: path()) }
        if type == Date.self { return try date(value, at: path()) }
        if type == URL.self { return try url(value, at: path()) }
        if type == Data.self { return try data(value, at: path()) }
        if type == Decimal.self { return try decimal(value, at: path()) }
        return nil
    }
}
