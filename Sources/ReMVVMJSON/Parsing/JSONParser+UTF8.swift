extension JSONParser {
    /// Checks the multi-byte UTF-8 sequence at the read position (RFC 3629: no overlong forms, no surrogates,
    /// nothing above U+10FFFF) and moves past it, so strings can be decoded without replacement characters.
    mutating func skipUTF8Sequence() throws(JSONParseError) {
        let start = index
        let lead = bytes[index]
        guard (0xC2...0xF4).contains(lead) else { throw error("invalid UTF-8 lead \(describe(lead))") }
        guard let end = UTF8Sequence.end(in: bytes, from: start) else {
            throw error("invalid UTF-8 sequence", at: start)
        }
        index = end
    }
}
