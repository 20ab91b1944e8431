import Testing

@testable import ReMVVMJSON

/// `JSONValue.appendString` scans contiguous UTF-8 in bulk; its output must be what escaping byte by byte,
/// as documented on `serialize(into:)`, gives.
@Suite("JSON string serialization")
struct JSONStringSerializationTests {
    static let strings: [String] = [
        "", "plain", "5", "counter/increase", "quote \" and backslash \\", "/slash", "tab\tnew\nline\r",
        "\u{0}\u{1}\u{8}\u{c}\u{1f}\u{7f}", "é, e\u{301}, \u{212A}, 🎉", String(repeating: "long ", count: 100),
        "ends with escape\n", "\"", "\\",
    ]

    @Test(arguments: strings)
    func escapesAsDocumented(string: String) throws {
        var written: [UInt8] = []
        JSONValue.appendString(string, to: &written)
        #expect(written == Self.reference(string))
        #expect(try JSONValue(parsing: written) == .string(string))
    }

    @Test func randomStringsEscapeAsDocumented() throws {
        var generator = SeededGenerator(seed: 0x57A1)
        let alphabet: [Unicode.Scalar] = ["a", "\"", "\\", "/", "\u{0}", "\u{1f}", "\n", "é", "\u{301}", "🎉", " "]
        for _ in 0..<500 {
            let length = Int.random(in: 0..<24, using: &generator)
            var scalars = String.UnicodeScalarView()
            for _ in 0..<length { scalars.append(alphabet.randomElement(using: &generator)!) }
            let string = String(scalars)
            var written: [UInt8] = []
            JSONValue.appendString(string, to: &written)
            #expect(written == Self.reference(string))
        }
    }

    /// The documented escaping, one byte at a time.
    static func reference(_ string: String) -> [UInt8] {
        var bytes: [UInt8] = [UInt8(ascii: "\"")]
        for byte in string.utf8 {
            switch byte {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"): bytes += [UInt8(ascii: "\\"), byte]
            case 0x08: bytes += Array(#"\b"#.utf8)
            case 0x09: bytes += Array(#"\t"#.utf8)
            case 0x0A: bytes += Array(#"\n"#.utf8)
            case 0x0C: bytes += Array(#"\f"#.utf8)
            case 0x0D: bytes += Array(#"\r"#.utf8)
            case ..<0x20:
                let hex = Array("0123456789abcdef".utf8)
                bytes += Array(#"\u00"#.utf8) + [hex[Int(byte >> 4)], hex[Int(byte & 0xF)]]
            default: bytes.append(byte)
            }
        }
        bytes.append(UInt8(ascii: "\""))
        return bytes
    }
}
