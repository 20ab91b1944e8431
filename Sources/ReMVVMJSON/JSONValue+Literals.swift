extension JSONValue: ExpressibleByBooleanLiteral {
    /// Lets documents be written inline (`["done": true]`) in tests and fixtures.
    public init(booleanLiteral value: Bool) {
        self = .bool(value)
    }
}

extension JSONValue: ExpressibleByIntegerLiteral {
    /// Lets documents be written inline (`["count": 3]`) in tests and fixtures.
    public init(integerLiteral value: Int64) {
        self = .int(value)
    }
}

extension JSONValue: ExpressibleByFloatLiteral {
    /// Lets documents be written inline (`["ratio": 0.5]`) in tests and fixtures.
    public init(floatLiteral value: Double) {
        self = .double(value)
    }
}

extension JSONValue: ExpressibleByStringLiteral {
    /// Lets documents be written inline (`["name": "Ada"]`) in tests and fixtures.
    public init(stringLiteral value: String) {
        self = .string(value)
    }
}

extension JSONValue: ExpressibleByArrayLiteral {
    /// Lets documents be written inline (`[1, "two", .null]`) in tests and fixtures.
    public init(arrayLiteral elements: JSONValue...) {
        self = .array(elements)
    }
}

extension JSONValue: ExpressibleByDictionaryLiteral {
    /// Lets documents be written inline (`["a": 1]`); a repeated key keeps its last value, as parsing does.
    public init(dictionaryLiteral elements: (String, JSONValue)...) {
        self = .object(Dictionary(elements, uniquingKeysWith: { _, last in last }))
    }
}
