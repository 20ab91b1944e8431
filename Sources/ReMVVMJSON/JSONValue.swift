/// A JSON document as a value: what projections are turned into for patches and wire output.
///
/// Numbers keep the distinction the parser and encoder make: integers that fit `Int64` are `.int`, every other
/// number is `.double`. Equality is structural (`.int(2) != .double(2)`); use ``isEquivalent(to:)`` for the
/// numeric comparison JSON itself defines.
public enum JSONValue: Sendable, Hashable {
    /// The JSON literal `null`.
    case null
    /// `true` or `false`.
    case bool(Bool)
    /// A number written without fraction or exponent that fits in 64 bits.
    case int(Int64)
    /// Any other number. It should be finite, because JSON cannot carry NaN or infinity: the encoder and the
    /// parser never produce them, and serialization writes them as `null`.
    case double(Double)
    /// A string of Unicode text.
    case string(String)
    /// An ordered list of values.
    case array([JSONValue])
    /// An unordered set of members; serialization sorts the keys so output is deterministic.
    case object([String: JSONValue])
}

extension JSONValue {
    /// The member named `key` when this is an object, so callers can reach into documents without a `switch`.
    public subscript(key: String) -> JSONValue? {
        guard case .object(let members) = self else { return nil }
        return members[key]
    }

    /// The element at `index` when this is an array and the index is in range, otherwise `nil` rather than a trap.
    public subscript(index: Int) -> JSONValue? {
        guard case .array(let elements) = self, elements.indices.contains(index) else { return nil }
        return elements[index]
    }

    /// The name of this value's JSON type, for error messages that say what was found instead of what was wanted.
    public var typeName: String {
        switch self {
        case .null: "null"
        case .bool: "boolean"
        case .int, .double: "number"
        case .string: "string"
        case .array: "array"
        case .object: "object"
        }
    }
}
