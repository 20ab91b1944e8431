extension JSONParser {
    /// Parses a string starting at its opening quote.
    ///
    /// Strings without escapes (nearly all of them) are validated in place and decoded with one copy; the first
    /// backslash switches to building the bytes in a buffer.
    mutating func parseString() throws(JSONParseError) -> String {
        let opening = index
        switch try scanUnescaped() {
        case .closed(let content): return String(decoding: bytes[content], as: UTF8.self)
        case .escape(let start): return try parseEscapedString(from: start, opening: opening)
        }
    }

    /// Where ``scanUnescaped()`` stopped.
    enum UnescapedScan {
        /// At the closing quote, now read past; the string's bytes are `content`.
        case closed(content: Range<Int>)
        /// At the first backslash, with the bytes from `start` up to it validated.
        case escape(start: Int)
    }

    /// Validates a string's bytes from its opening quote up to its closing quote or its first backslash.
    mutating func scanUnescaped() throws(JSONParseError) -> UnescapedScan {
        let opening = index
        index += 1
        let start = index
        while let byte = current {
            switch byte {
            case UInt8(ascii: "\""):
                index += 1
                return .closed(content: start..<(index - 1))
            case UInt8(ascii: "\\"):
                return .escape(start: start)
            case ..<0x20:
                throw error("unescaped control character \(describe(byte)) in string")
            case ..<0x80:
                index += 1
            default:
                try skipUTF8Sequence()
            }
        }
        throw error("unterminated string", at: opening)
    }

    /// Continues a string at its first backslash, with the bytes before it already validated.
    private mutating func parseEscapedString(from start: Int, opening: Int) throws(JSONParseError) -> String {
        var utf8 = Array(bytes[start..<index])
        while let byte = current {
            switch byte {
            case UInt8(ascii: "\""):
                index += 1
                return String(decoding: utf8, as: UTF8.self)
            case UInt8(ascii: "\\"):
                try appendEscape(to: &utf8)
            case ..<0x20:
                throw error("unescaped control character \(describe(byte)) in string")
            case ..<0x80:
                utf8.append(byte)
                index += 1
            default:
                let sequenceStart = index
                try skipUTF8Sequence()
                utf8.append(contentsOf: bytes[sequenceStart..<index])
            }
        }
        throw error("unterminated string", at: opening)
    }

    /// Decodes the escape at the read position (a backslash) and appends its UTF-8.
    private mutating func appendEscape(to utf8: inout [UInt8]) throws(JSONParseError) {
        let escapeStart = index
        index += 1
        guard let letter = current else {
            throw error("unterminated escape sequence", at: escapeStart)
        }
        index += 1
        if let byte = Self.shortEscapeByte(letter) {
            utf8.append(byte)
        } else if letter == UInt8(ascii: "u") {
            let scalar = try parseUnicodeEscape(startingAt: escapeStart)
            Unicode.UTF8.encode(scalar) { utf8.append($0) }
        } else {
            throw error("invalid escape sequence '\\\(Character(Unicode.Scalar(letter)))'", at: escapeStart)
        }
    }

    /// The byte a two-character escape (`\"`, `\\`, `\/`, `\b`, `\f`, `\n`, `\r`, `\t`) stands for, given the
    /// letter after the backslash; nil for `u` and anything that is not an escape.
    static func shortEscapeByte(_ letter: UInt8) -> UInt8? {
        switch letter {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): letter
        case UInt8(ascii: "b"): 0x08
        case UInt8(ascii: "f"): 0x0C
        case UInt8(ascii: "n"): 0x0A
        case UInt8(ascii: "r"): 0x0D
        case UInt8(ascii: "t"): 0x09
        default: nil
        }
    }

    /// Reads the four hex digits after `\u`, and a second `\uXXXX` when the first is a high surrogate.
    private mutating func parseUnicodeEscape(startingAt escapeStart: Int) throws(JSONParseError) -> Unicode.Scalar {
        let first = try parseHexQuad()
        switch first {
        case 0xD800...0xDBFF:
            guard current == UInt8(ascii: "\\"), index + 1 < bytes.count, bytes[index + 1] == UInt8(ascii: "u") else {
                throw error("unpaired high surrogate \\u\(hex(first))", at: escapeStart)
            }
            index += 2
            let second = try parseHexQuad()
            guard (0xDC00...0xDFFF).contains(second) else {
                throw error("high surrogate \\u\(hex(first)) not followed by a low surrogate", at: escapeStart)
            }
            let value = 0x10000 + ((first - 0xD800) << 10) + (second - 0xDC00)
            guard let scalar = Unicode.Scalar(value) else {
                throw error("invalid surrogate pair", at: escapeStart)
            }
            return scalar
        case 0xDC00...0xDFFF:
            throw error("unpaired low surrogate \\u\(hex(first))", at: escapeStart)
        default:
            guard let scalar = Unicode.Scalar(first) else {
                throw error("invalid unicode escape", at: escapeStart)
            }
            return scalar
        }
    }

    private mutating func parseHexQuad() throws(JSONParseError) -> UInt32 {
        var value: UInt32 = 0
        for _ in 0..<4 {
            guard let byte = current else {
                throw error("unterminated unicode escape")
            }
            let digit: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
            default: throw error("invalid hex digit \(describe(byte)) in unicode escape")
            }
            value = value << 4 | UInt32(digit)
            index += 1
        }
        return value
    }

    private func hex(_ value: UInt32) -> String {
        let digits = String(value, radix: 16, uppercase: true)
        return String(repeating: "0", count: max(0, 4 - digits.count)) + digits
    }
}
