import ReMVVMJSON
import Testing

/// A document the parser must reject, with the byte offset the error must name.
struct InvalidDocument: Sendable, CustomTestStringConvertible {
    let bytes: [UInt8]
    let offset: Int

    init(_ text: String, at offset: Int) {
        self.bytes = Array(text.utf8)
        self.offset = offset
    }

    init(bytes: [UInt8], at offset: Int) {
        self.bytes = bytes
        self.offset = offset
    }

    var testDescription: String {
        String(decoding: bytes, as: UTF8.self).debugDescription
    }
}

@Suite("JSONValue(parsing:)")
struct JSONParsingTests {
    static let validDocuments: [(String, JSONValue)] = [
        ("null", .null),
        ("true", true),
        ("false", false),
        ("0", 0),
        ("-0", 0),
        ("123", 123),
        ("-9223372036854775808", .int(.min)),
        ("9223372036854775807", .int(.max)),
        ("9223372036854775808", .double(0x1p63)),
        ("-9223372036854775809", .double(-0x1p63)),
        ("1.5", 1.5),
        ("-1.5e3", -1500.0),
        ("1E2", 100.0),
        ("1e-2", 0.01),
        ("0.0", 0.0),
        ("2.0", 2.0),
        ("1e-400", 0.0),
        (" \t\n\r[ ] \n", []),
        ("{}", [:]),
        (#"{"a":1,"a":2}"#, ["a": 2]),
        (#"{ "a" : [ 1 , { "b" : null } ] }"#, ["a": [1, ["b": .null]]]),
        (#""\"\\\/\b\f\n\r\t""#, "\"\\/\u{8}\u{c}\n\r\t"),
        (#""\u0041\u00e9\u00E9""#, "Aéé"),
        (#""\ud83c\udf89""#, "🎉"),
        (#""\u0000""#, "\u{0}"),
        (#""日本 🎉 \u65e5""#, "日本 🎉 日"),
        (#""\u2028\u2029""#, "\u{2028}\u{2029}"),
        (#"["",""]"#, ["", ""]),
        ("\"\u{7F}\"", "\u{7F}"),
    ]

    static let invalidDocuments: [InvalidDocument] = [
        InvalidDocument("", at: 0),
        InvalidDocument("   ", at: 3),
        InvalidDocument("nul", at: 0),
        InvalidDocument("nulls", at: 4),
        InvalidDocument("True", at: 0),
        InvalidDocument("tru", at: 0),
        InvalidDocument("01", at: 0),
        InvalidDocument("-01", at: 1),
        InvalidDocument("-", at: 1),
        InvalidDocument("+1", at: 0),
        InvalidDocument(".5", at: 0),
        InvalidDocument("1.", at: 2),
        InvalidDocument("1.e3", at: 2),
        InvalidDocument("1e", at: 2),
        InvalidDocument("1e+", at: 3),
        InvalidDocument("1e400", at: 0),
        InvalidDocument("-1e400", at: 0),
        InvalidDocument("NaN", at: 0),
        InvalidDocument("Infinity", at: 0),
        InvalidDocument("0x10", at: 1),
        InvalidDocument("1 2", at: 2),
        InvalidDocument("[] x", at: 3),
        InvalidDocument("[1]]", at: 3),
        InvalidDocument("[", at: 1),
        InvalidDocument("[1", at: 2),
        InvalidDocument("[1,]", at: 3),
        InvalidDocument("[1 2]", at: 3),
        InvalidDocument("[,1]", at: 1),
        InvalidDocument("{", at: 1),
        InvalidDocument("{a:1}", at: 1),
        InvalidDocument("{'a':1}", at: 1),
        InvalidDocument(#"{"a" 1}"#, at: 5),
        InvalidDocument(#"{"a":}"#, at: 5),
        InvalidDocument(#"{"a":1,}"#, at: 7),
        InvalidDocument(#"{"a":1 "b":2}"#, at: 7),
        InvalidDocument(#"{"a":1]"#, at: 6),
        InvalidDocument("/* comment */ 1", at: 0),
        InvalidDocument("\"abc", at: 0),
        InvalidDocument("\"abc\\", at: 4),
        InvalidDocument(#""\x""#, at: 1),
        InvalidDocument(#""\U0041""#, at: 1),
        InvalidDocument(#""\u12""#, at: 5),
        InvalidDocument(#""\u12G4""#, at: 5),
        InvalidDocument(#""\ud800""#, at: 1),
        InvalidDocument(#""\udc00""#, at: 1),
        InvalidDocument(#""\ud800\u0041""#, at: 1),
        InvalidDocument(#""\ud800\ud800""#, at: 1),
        InvalidDocument("\"a\u{1}\"", at: 2),
        InvalidDocument("\"tab\there\"", at: 4),
        InvalidDocument("\"line\nbreak\"", at: 5),
        InvalidDocument("\u{FEFF}1", at: 0),
        InvalidDocument("é", at: 0),
        InvalidDocument(bytes: [0x22, 0xFF, 0x22], at: 1),
        InvalidDocument(bytes: [0x22, 0x80, 0x22], at: 1),
        InvalidDocument(bytes: [0x22, 0xC0, 0xAF, 0x22], at: 1),
        InvalidDocument(bytes: [0x22, 0xE0, 0x80, 0xAF, 0x22], at: 1),
        InvalidDocument(bytes: [0x22, 0xED, 0xA0, 0x80, 0x22], at: 1),
        InvalidDocument(bytes: [0x22, 0xE2, 0x82, 0x22], at: 1),
        InvalidDocument(bytes: [0x22, 0xF4, 0x90, 0x80, 0x80, 0x22], at: 1),
        InvalidDocument(bytes: [0x22, 0xF0, 0x9F, 0x8E], at: 1),
        InvalidDocument(bytes: [0x22, 0x5C, 0x22, 0xC3], at: 3),
        InvalidDocument(bytes: [0x31, 0x00], at: 1),
    ]

    @Test(arguments: validDocuments)
    func acceptsValidDocument(_ text: String, expected: JSONValue) throws {
        #expect(try JSONValue(parsing: text) == expected)
    }

    @Test(arguments: invalidDocuments)
    func rejectsInvalidDocumentAtTheOffendingByte(_ document: InvalidDocument) {
        let error = #expect(throws: JSONParseError.self) { try JSONValue(parsing: document.bytes) }
        #expect(error?.offset == document.offset, "\(String(describing: error))")
    }

    @Test
    func errorDescriptionNamesOffsetAndReason() {
        let error = #expect(throws: JSONParseError.self) { try JSONValue(parsing: "[1,]") }
        #expect(error?.description == "invalid JSON at byte 3: unexpected ']', expected a value")
    }

    @Test
    func nestingUpToTheLimitIsAccepted() throws {
        let depth = 512
        let text = String(repeating: "[", count: depth) + String(repeating: "]", count: depth)
        var value = try JSONValue(parsing: text)
        var levels = 0
        while case .array(let elements) = value {
            levels += 1
            value = elements.first ?? .null
        }
        #expect(levels == depth)
    }

    @Test(arguments: [513, 100_000])
    func nestingBeyondTheLimitIsRejected(depth: Int) {
        // Each repetition opens two containers in six bytes, so container 513 opens at byte 256 * 6.
        let text = String(repeating: "[{\"a\":", count: depth / 2 + 1)
        let error = #expect(throws: JSONParseError.self) { try JSONValue(parsing: text) }
        #expect(error?.offset == 256 * 6)
        #expect(error?.reason.contains("512") == true)
    }

    @Test
    func customDepthLimitApplies() throws {
        #expect(try JSONValue(parsing: "[[1]]", maxDepth: 2) == [[1]])
        #expect(throws: JSONParseError.self) { try JSONValue(parsing: "[[[1]]]", maxDepth: 2) }
        #expect(throws: JSONParseError.self) { try JSONValue(parsing: "[]", maxDepth: 0) }
        #expect(try JSONValue(parsing: "7", maxDepth: 0) == 7)
    }

    @Test
    func acceptsAnyCollectionOfBytes() throws {
        let bytes = Array(#"xx{"k":[1,2]}yy"#.utf8)
        #expect(try JSONValue(parsing: bytes[2..<13]) == ["k": [1, 2]])
        #expect(try JSONValue(parsing: "[true]".utf8) == [true])
    }

    @Test
    func mutatedDocumentsNeverCrashAndWhatParsesRoundTrips() throws {
        var random = RandomJSON(seed: 0xBAD_5EED)
        var accepted = 0
        let insertable: [UInt8] = [
            UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "["), UInt8(ascii: "}"), 0x00, 0xC3, 0xFF,
        ]
        for _ in 0..<3000 {
            var bytes = random.value(depth: 4).serialized()
            for _ in 0..<Int.random(in: 1...3, using: &random.generator) {
                let position = Int.random(in: 0...bytes.count, using: &random.generator)
                let byte = insertable.randomElement(using: &random.generator) ?? 0
                switch Int.random(in: 0..<3, using: &random.generator) {
                case 0 where position < bytes.count: bytes[position] = byte
                case 1 where position < bytes.count: bytes.remove(at: position)
                default: bytes.insert(byte, at: position)
                }
            }
            guard let value = try? JSONValue(parsing: bytes) else { continue }
            accepted += 1
            #expect(try JSONValue(parsing: value.serialized()) == value)
        }
        #expect(accepted > 0)
    }
}
