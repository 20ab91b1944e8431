extension JSONParser {
    /// Checks the multi-byte UTF-8 sequence at the read position (RFC 3629: no overlong forms, no surrogates,
    /// nothing above U+10FFFF) and moves past it, so strings can be decoded without replacement characters.
    mutating func skipUTF8Sequence() throws(JSONParseError) {
        let start = index
        let lead = bytes[index]
        let continuationCount: Int
        var secondByteRange: ClosedRange<UInt8> = 0x80...0xBF
        switch lead {
        case 0xC2...0xDF:
            continuationCount = 1
        case 0xE0:
            continuationCount = 2
            secondByteRange = 0xA0...0xBF
        case 0xE1...0xEC, 0xEE...0xEF:
            continuationCount = 2
        case 0xED:
            continuationCount = 2
            secondByteRange = 0x80...0x9F
        case 0xF0:
            continuationCount = 3
            secondByteRange = 0x90...0xBF
        case 0xF1...0xF3:
            continuationCount = 3
        case 0xF4:
            continuationCount = 3
            secondByteRange = 0x80...0x8F
        default:
            throw error("invalid UTF-8 lead \(describe(lead))")
        }
        index += 1
        for position in 0..<continuationCount {
            let allowed = position == 0 ? secondByteRange : 0x80...0xBF
            guard let byte = current, allowed.contains(byte) else {
                throw error("invalid UTF-8 sequence", at: start)
            }
            index += 1
        }
    }
}
