extension JSONValue {
    /// The compact UTF-8 serialization, ready to be sent as a response body.
    public func serialized() -> [UInt8] {
        var buffer: [UInt8] = []
        serialize(into: &buffer)
        return buffer
    }

    /// The compact serialization as a `String`, for logs and tests.
    public var jsonString: String {
        String(decoding: serialized(), as: UTF8.self)
    }

    /// Appends the compact serialization to `buffer`, so a response can be assembled from parts without
    /// intermediate copies.
    ///
    /// The output is deterministic, so equal values give equal bytes (useful for ETags and tests):
    /// - object keys are sorted by the byte order of their UTF-8, with no whitespace anywhere;
    /// - strings escape `"` and `\`, write U+0008, U+0009, U+000A, U+000C and U+000D as `\b`, `\t`, `\n`,
    ///   `\f` and `\r` and other control characters as `\u00XX`, and keep everything else (including `/`
    ///   and non-ASCII) as plain UTF-8;
    /// - doubles use Swift's shortest round-trip form and always look like doubles (`2.0`, `1e+20`, `1.5`),
    ///   so parsing the output gives back `.double`; integers are plain digits. NaN and infinity, which only a
    ///   hand-built value can hold, are written as `null`, as JavaScript's `JSON.stringify` does.
    public func serialize(into buffer: inout [UInt8]) {
        switch self {
        case .null:
            buffer.append(utf8: "null")
        case .bool(let value):
            buffer.append(contentsOf: value ? "true".utf8 : "false".utf8)
        case .int(let value):
            Self.appendInteger(value, to: &buffer)
        case .double(let value) where value.isFinite:
            buffer.append(contentsOf: value.description.utf8)
        case .double:
            // Only hand-built values can hold NaN or infinity; `null` keeps the output valid JSON.
            buffer.append(utf8: "null")
        case .string(let value):
            Self.appendString(value, to: &buffer)
        case .array(let elements):
            buffer.append(UInt8(ascii: "["))
            for (position, element) in elements.enumerated() {
                if position > 0 {
                    buffer.append(UInt8(ascii: ","))
                }
                element.serialize(into: &buffer)
            }
            buffer.append(UInt8(ascii: "]"))
        case .object(let members):
            buffer.append(UInt8(ascii: "{"))
            // Sorting the pairs rather than the keys avoids hashing every key again to look its value up.
            let sortedMembers = members.sorted { $0.key.utf8.lexicographicallyPrecedes($1.key.utf8) }
            for (position, member) in sortedMembers.enumerated() {
                if position > 0 {
                    buffer.append(UInt8(ascii: ","))
                }
                Self.appendString(member.key, to: &buffer)
                buffer.append(UInt8(ascii: ":"))
                member.value.serialize(into: &buffer)
            }
            buffer.append(UInt8(ascii: "}"))
        }
    }

    /// Writes the digits directly, avoiding the `String` that `description` would allocate.
    private static func appendInteger(_ value: Int64, to buffer: inout [UInt8]) {
        if value < 0 {
            buffer.append(UInt8(ascii: "-"))
        }
        var magnitude = value.magnitude
        let start = buffer.count
        repeat {
            buffer.append(UInt8(ascii: "0") + UInt8(magnitude % 10))
            magnitude /= 10
        } while magnitude > 0
        buffer[start...].reverse()
    }

    /// Writes a quoted, escaped string. Most strings need no escaping and are copied in one go; the rest are
    /// written byte by byte.
    ///
    /// Scans the string's contiguous UTF-8 through a buffer pointer where it can (native strings always can),
    /// because iterating `utf8` checks the string's representation on every byte, which cost more than the
    /// copy for the short strings view models hold.
    static func appendString(_ string: String, to buffer: inout [UInt8]) {
        buffer.append(UInt8(ascii: "\""))
        let copied: Void? = string.utf8.withContiguousStorageIfAvailable { utf8 in
            if utf8.contains(where: needsEscaping) {
                appendEscaping(utf8, to: &buffer)
            } else {
                buffer.append(contentsOf: utf8)
            }
        }
        if copied == nil {
            appendEscaping(string.utf8, to: &buffer)
        }
        buffer.append(UInt8(ascii: "\""))
    }

    /// Writes `utf8` with every byte that needs it escaped.
    private static func appendEscaping(_ utf8: some Sequence<UInt8>, to buffer: inout [UInt8]) {
        for byte in utf8 {
            if needsEscaping(byte) {
                appendEscape(for: byte, to: &buffer)
            } else {
                buffer.append(byte)
            }
        }
    }

    private static func needsEscaping(_ byte: UInt8) -> Bool {
        byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\")
    }

    private static func appendEscape(for byte: UInt8, to buffer: inout [UInt8]) {
        buffer.append(UInt8(ascii: "\\"))
        switch byte {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"): buffer.append(byte)
        case 0x08: buffer.append(UInt8(ascii: "b"))
        case 0x09: buffer.append(UInt8(ascii: "t"))
        case 0x0A: buffer.append(UInt8(ascii: "n"))
        case 0x0C: buffer.append(UInt8(ascii: "f"))
        case 0x0D: buffer.append(UInt8(ascii: "r"))
        default:
            let hexDigits = Array("0123456789abcdef".utf8)
            buffer.append(utf8: "u00")
            buffer.append(hexDigits[Int(byte >> 4)])
            buffer.append(hexDigits[Int(byte & 0x0F)])
        }
    }
}
