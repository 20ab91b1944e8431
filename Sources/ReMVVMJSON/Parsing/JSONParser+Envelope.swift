extension JSONParser {
    /// Reads an action envelope of exactly the shape nearly every dispatch has, `{"type": "<name>"}` or
    /// `{"type": "<name>", "payload": <value>}` (any whitespace), without building the envelope object.
    ///
    /// Returns nil for anything else: other keys or key order, escaped keys, invalid JSON, trailing bytes.
    /// The caller then parses the document in full, which accepts every valid shape and names the exact
    /// problem, so this shortcut never changes what is accepted or what an error says.
    ///
    /// The type comes back as where its bytes are, not as a string: the registry compares them with its names in
    /// place, and a dispatch makes no string for its action's type. A type with an escape is left to the full
    /// parse too.
    package mutating func parseActionEnvelope() -> (type: Range<Int>, payload: JSONValue?)? {
        skipWhitespace()
        guard current == UInt8(ascii: "{") else { return nil }
        index += 1
        guard readKey(Self.typeKey), current == UInt8(ascii: "\""), let type = plainString() else { return nil }
        skipWhitespace()
        var payload: JSONValue?
        if current == UInt8(ascii: ",") {
            index += 1
            guard readKey(Self.payloadKey), current != nil, let value = try? parseNestedValue(level: 1) else {
                return nil
            }
            payload = value
            skipWhitespace()
        }
        guard current == UInt8(ascii: "}") else { return nil }
        index += 1
        skipWhitespace()
        return index == bytes.count ? (type, payload) : nil
    }

    /// The bytes of a string at the read position that has no escapes, validated as ``parseString()`` validates
    /// them, with the read position past its closing quote; nil for an escape or anything invalid.
    private mutating func plainString() -> Range<Int>? {
        guard case .closed(let content)? = try? scanUnescaped() else { return nil }
        return content
    }

    private static let typeKey = Array(#""type""#.utf8)
    private static let payloadKey = Array(#""payload""#.utf8)

    /// Consumes whitespace, the quoted `key` byte for byte, whitespace, `:` and whitespace; false if
    /// anything else is there.
    private mutating func readKey(_ key: [UInt8]) -> Bool {
        skipWhitespace()
        let end = index + key.count
        guard end <= bytes.count else { return false }
        // Indexed, not `elementsEqual` on a slice, which iterated generically and cost more than the rest.
        for offset in 0..<key.count where bytes[index + offset] != key[offset] {
            return false
        }
        index = end
        skipWhitespace()
        guard current == UInt8(ascii: ":") else { return false }
        index += 1
        skipWhitespace()
        return true
    }
}
