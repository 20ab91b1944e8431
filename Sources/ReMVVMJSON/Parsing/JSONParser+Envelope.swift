extension JSONParser {
    /// Reads a dispatch body, one action envelope `{"type": ..., "payload": ...}` or an array of them, in one
    /// pass and without building the envelope objects: each envelope gives its `type` and `payload` members,
    /// and a type without escapes comes back as where its bytes are, so the registry can compare it with its
    /// names in place and a dispatch makes no string for its action's type.
    ///
    /// The whole document is validated as ``parseDocument()`` validates it (the same errors at the same
    /// offsets, the depth limit counting the envelopes around each payload), and a syntax error anywhere
    /// throws before any shape problem is reported: shape problems come back as values for the caller to
    /// name. Members other than `type` and `payload` are validated and ignored; a member given twice counts
    /// once, the last one, as in a parsed object.
    public mutating func parseActionEnvelopes() throws(JSONParseError) -> ActionEnvelopes {
        skipWhitespace()
        let envelopes: ActionEnvelopes
        switch current {
        case UInt8(ascii: "{"):
            envelopes = .single(try parseEnvelope(level: 0))
        case UInt8(ascii: "["):
            envelopes = .batch(try parseEnvelopeArray())
        default:
            _ = try parseNestedValue(level: 0)
            envelopes = .neither
        }
        skipWhitespace()
        guard index == bytes.count else {
            throw error("unexpected \(describe(bytes[index])) after the end of the document")
        }
        return envelopes
    }

    /// The elements of the top-level array, each read as an envelope.
    private mutating func parseEnvelopeArray() throws(JSONParseError) -> [ActionEnvelopes.Item] {
        try enterEnvelopeContainer(level: 0)
        skipWhitespace()
        var items: [ActionEnvelopes.Item] = []
        if current == UInt8(ascii: "]") {
            index += 1
            return items
        }
        while true {
            skipWhitespace()
            if current == UInt8(ascii: "{") {
                items.append(try parseEnvelope(level: 1))
            } else {
                items.append(.notAnObject(try parseNestedValue(level: 1)))
            }
            skipWhitespace()
            switch current {
            case UInt8(ascii: ","):
                index += 1
            case UInt8(ascii: "]"):
                index += 1
                return items
            default:
                throw unexpected(" in array", expected: "',' or ']'")
            }
        }
    }

    /// One envelope object at the read position (its `{`), nested in `level` containers.
    private mutating func parseEnvelope(level: Int) throws(JSONParseError) -> ActionEnvelopes.Item {
        try enterEnvelopeContainer(level: level)
        skipWhitespace()
        var type: ActionEnvelopes.Member?
        var payload: JSONValue?
        if current == UInt8(ascii: "}") {
            index += 1
            return .action(type: nil, payload: nil)
        }
        while true {
            skipWhitespace()
            guard current == UInt8(ascii: "\"") else {
                throw unexpected(expected: "a string key")
            }
            let key = try parseEnvelopeKey()
            skipWhitespace()
            guard current == UInt8(ascii: ":") else {
                throw unexpected(expected: "':'")
            }
            index += 1
            skipWhitespace()
            switch key {
            case .type:
                type = try parseTypeMember(level: level + 1)
            case .payload:
                payload = try parseNestedValue(level: level + 1)
            case .other:
                _ = try parseNestedValue(level: level + 1)
            }
            skipWhitespace()
            switch current {
            case UInt8(ascii: ","):
                index += 1
            case UInt8(ascii: "}"):
                index += 1
                return .action(type: type, payload: payload)
            default:
                throw unexpected(" in object", expected: "',' or '}'")
            }
        }
    }

    /// The members of an envelope the reader keeps.
    private enum EnvelopeKey { case type, payload, other }

    /// Reads a key at its opening quote; a key without escapes is compared in place.
    private mutating func parseEnvelopeKey() throws(JSONParseError) -> EnvelopeKey {
        let opening = index
        switch try scanUnescaped() {
        case .closed(let content):
            if equals(content, Self.typeName) { return .type }
            if equals(content, Self.payloadName) { return .payload }
            return .other
        case .escape:
            index = opening
            switch try parseString() {
            case "type": return .type
            case "payload": return .payload
            default: return .other
            }
        }
    }

    /// The value of a `type` member: where a plain string's bytes are, an escaped string unescaped, or any
    /// other value as parsed.
    private mutating func parseTypeMember(level: Int) throws(JSONParseError) -> ActionEnvelopes.Member {
        guard current == UInt8(ascii: "\"") else { return .value(try parseNestedValue(level: level)) }
        let opening = index
        switch try scanUnescaped() {
        case .closed(let content):
            return .utf8(content)
        case .escape:
            index = opening
            return .value(.string(try parseString()))
        }
    }

    /// Enters an envelope or the batch array, with the depth check ``parseDocument()`` makes.
    private mutating func enterEnvelopeContainer(level: Int) throws(JSONParseError) {
        guard level < maxDepth else {
            throw error("nesting deeper than \(maxDepth) levels")
        }
        index += 1
    }

    /// Whether the input's bytes in `range` are `name`'s.
    private func equals(_ range: Range<Int>, _ name: [UInt8]) -> Bool {
        guard range.count == name.count else { return false }
        // Indexed, not `elementsEqual` on a slice, which iterated generically and cost more than the rest.
        for offset in 0..<name.count where bytes[range.lowerBound + offset] != name[offset] {
            return false
        }
        return true
    }

    private static let typeName = Array("type".utf8)
    private static let payloadName = Array("payload".utf8)
}
