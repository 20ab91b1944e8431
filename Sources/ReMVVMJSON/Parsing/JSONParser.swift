/// A strict RFC 8259 recursive-descent parser over UTF-8 bytes.
///
/// Strict means: one value per document, surrounded only by JSON whitespace; no comments, trailing commas,
/// leading zeros, `+` signs, bare `.5`, byte order marks, unescaped control characters, invalid UTF-8 or
/// unpaired surrogates. Duplicate object keys are accepted and the last one wins.
public struct JSONParser {
    /// The input; an array so that reading a byte is a bounds-checked load, without unsafe pointers.
    let bytes: [UInt8]
    /// Containers nested deeper than this are rejected, which bounds the recursion on hostile input.
    let maxDepth: Int
    /// The offset of the next byte to read.
    var index = 0
    /// How many containers enclose the current position.
    private var depth = 0
    /// Elements of the arrays being parsed, innermost last. Collecting them here and copying each array out
    /// once it closes gives exactly-sized arrays without a growing allocation per array.
    private var elementStack: [JSONValue] = []
    /// Members of the objects being parsed, innermost last, so each dictionary is created at its final size
    /// instead of being rehashed as it grows.
    private var memberStack: [(key: String, value: JSONValue)] = []

    public init(bytes: [UInt8], maxDepth: Int) {
        self.bytes = bytes
        self.maxDepth = maxDepth
    }

    /// Parses the whole input as one document.
    mutating func parseDocument() throws(JSONParseError) -> JSONValue {
        skipWhitespace()
        let value = try parseValue()
        skipWhitespace()
        guard index == bytes.count else {
            throw error("unexpected \(describe(bytes[index])) after the end of the document")
        }
        return value
    }

    /// The byte at the read position, or `nil` at the end of the input.
    var current: UInt8? {
        index < bytes.count ? bytes[index] : nil
    }

    /// An error at the read position (or `offset`).
    func error(_ reason: String, at offset: Int? = nil) -> JSONParseError {
        JSONParseError(offset: offset ?? index, reason: reason)
    }

    /// An error at the read position saying what was found there instead of `expectation`.
    func unexpected(_ context: String = "", expected expectation: String) -> JSONParseError {
        let found = current.map { "unexpected \(describe($0))" } ?? "unexpected end of input"
        return error("\(found)\(context), expected \(expectation)")
    }

    /// A byte as error messages show it: printable ASCII quoted, anything else in hex.
    func describe(_ byte: UInt8) -> String {
        if (0x21...0x7E).contains(byte) {
            return "'\(Character(Unicode.Scalar(byte)))'"
        }
        let hex = String(byte, radix: 16, uppercase: true)
        return "byte 0x\(byte < 0x10 ? "0" : "")\(hex)"
    }

    mutating func skipWhitespace() {
        while index < bytes.count {
            switch bytes[index] {
            case UInt8(ascii: " "), UInt8(ascii: "\n"), UInt8(ascii: "\r"), UInt8(ascii: "\t"):
                index += 1
            default:
                return
            }
        }
    }

    /// Parses a value nested `level` containers deep (for readers of fixed shapes such as the action
    /// envelope), so the depth limit counts the containers around it.
    mutating func parseNestedValue(level: Int) throws(JSONParseError) -> JSONValue {
        depth = level
        defer { depth = 0 }
        return try parseValue()
    }

    private mutating func parseValue() throws(JSONParseError) -> JSONValue {
        guard let byte = current else {
            throw unexpected(expected: "a value")
        }
        switch byte {
        case UInt8(ascii: "{"): return try parseObject()
        case UInt8(ascii: "["): return try parseArray()
        case UInt8(ascii: "\""): return .string(try parseString())
        case UInt8(ascii: "t"): return try parseLiteral(Self.trueBytes, as: .bool(true))
        case UInt8(ascii: "f"): return try parseLiteral(Self.falseBytes, as: .bool(false))
        case UInt8(ascii: "n"): return try parseLiteral(Self.nullBytes, as: .null)
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return try parseNumber()
        default: throw unexpected(expected: "a value")
        }
    }

    private static let trueBytes = Array("true".utf8)
    private static let falseBytes = Array("false".utf8)
    private static let nullBytes = Array("null".utf8)

    private mutating func parseLiteral(_ word: [UInt8], as value: JSONValue) throws(JSONParseError) -> JSONValue {
        let end = index + word.count
        guard end <= bytes.count, bytes[index..<end].elementsEqual(word) else {
            throw error("invalid literal, expected '\(String(decoding: word, as: UTF8.self))'")
        }
        index = end
        return value
    }

    private mutating func enterContainer() throws(JSONParseError) {
        guard depth < maxDepth else {
            throw error("nesting deeper than \(maxDepth) levels")
        }
        depth += 1
        index += 1
    }

    private mutating func parseArray() throws(JSONParseError) -> JSONValue {
        try enterContainer()
        skipWhitespace()
        if current == UInt8(ascii: "]") {
            index += 1
            depth -= 1
            return .array([])
        }
        let base = elementStack.count
        while true {
            skipWhitespace()
            elementStack.append(try parseValue())
            skipWhitespace()
            switch current {
            case UInt8(ascii: ","):
                index += 1
            case UInt8(ascii: "]"):
                index += 1
                depth -= 1
                let elements = Array(elementStack[base...])
                elementStack.removeSubrange(base...)
                return .array(elements)
            default:
                throw unexpected(" in array", expected: "',' or ']'")
            }
        }
    }

    private mutating func parseObject() throws(JSONParseError) -> JSONValue {
        try enterContainer()
        skipWhitespace()
        if current == UInt8(ascii: "}") {
            index += 1
            depth -= 1
            return .object([:])
        }
        let base = memberStack.count
        while true {
            skipWhitespace()
            guard current == UInt8(ascii: "\"") else {
                throw unexpected(expected: "a string key")
            }
            let key = try parseString()
            skipWhitespace()
            guard current == UInt8(ascii: ":") else {
                throw unexpected(expected: "':'")
            }
            index += 1
            skipWhitespace()
            let value = try parseValue()
            memberStack.append((key, value))
            skipWhitespace()
            switch current {
            case UInt8(ascii: ","):
                index += 1
            case UInt8(ascii: "}"):
                index += 1
                depth -= 1
                var members = [String: JSONValue](minimumCapacity: memberStack.count - base)
                for (key, value) in memberStack[base...] {
                    members[key] = value
                }
                memberStack.removeSubrange(base...)
                return .object(members)
            default:
                throw unexpected(" in object", expected: "',' or '}'")
            }
        }
    }
}
