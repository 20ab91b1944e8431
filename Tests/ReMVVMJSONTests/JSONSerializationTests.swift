import ReMVVMJSON
import Testing

@Suite("JSONValue serialization")
struct JSONSerializationTests {
    static let serializations: [(JSONValue, String)] = [
        (.null, "null"),
        (true, "true"),
        (false, "false"),
        (0, "0"),
        (-42, "-42"),
        (.int(.max), "9223372036854775807"),
        (.int(.min), "-9223372036854775808"),
        (1.5, "1.5"),
        (2.0, "2.0"),
        (-0.0, "-0.0"),
        (0.1, "0.1"),
        (1e20, "1e+20"),
        (1e-7, "1e-07"),
        (.double(.greatestFiniteMagnitude), "1.7976931348623157e+308"),
        ("", #""""#),
        ("a\"b\\c/d", #""a\"b\\c/d""#),
        ("\u{0}\u{1}\u{1F}", #""\u0000\u0001\u001f""#),
        ("\u{8}\u{9}\u{A}\u{C}\u{D}", #""\b\t\n\f\r""#),
        ("é日🎉\u{7F}\u{2028}", "\"é日🎉\u{7F}\u{2028}\""),
        ([], "[]"),
        ([:], "{}"),
        ([1, [2, [.null]], ["k": "v"]], #"[1,[2,[null]],{"k":"v"}]"#),
        (["b": 1, "a": 2, "B": 3, "é": 4, "aa": 5, "": 6], #"{"":6,"B":3,"a":2,"aa":5,"b":1,"é":4}"#),
        (["\u{FFFF}": 1, "🎉": 2], #"{"\#u{FFFF}":1,"🎉":2}"#),
        (["quote\"key": ["nested": [:]]], #"{"quote\"key":{"nested":{}}}"#),
    ]

    @Test(arguments: serializations)
    func serializesCompactlyWithSortedKeysAndMinimalEscaping(_ value: JSONValue, expected: String) {
        #expect(value.jsonString == expected)
        #expect(value.serialized() == Array(expected.utf8))
    }

    @Test(arguments: serializations)
    func parsingTheOutputGivesTheValueBack(_ value: JSONValue, expected: String) throws {
        #expect(try JSONValue(parsing: value.serialized()) == value)
    }

    @Test(arguments: [
        #"{"a":[1,2.5,"x",null,true,false,{}],"b":{"c":[]}}"#,
        #"[-1,0,1e+20,"\u0000\n\"",""]"#,
        #"{"":0,"~/":"日本"}"#,
    ])
    func serializingAParsedCanonicalDocumentGivesTheSameBytes(_ text: String) throws {
        #expect(try JSONValue(parsing: text).jsonString == text)
    }

    @Test
    func randomDocumentsRoundTripThroughBytes() throws {
        var random = RandomJSON(seed: 42)
        for _ in 0..<2000 {
            let value = random.value(depth: 4)
            #expect(try JSONValue(parsing: value.serialized()) == value)
        }
    }

    @Test
    func serializeAppendsToAnExistingBuffer() {
        var buffer = Array("data: ".utf8)
        let value: JSONValue = ["x": 1]
        value.serialize(into: &buffer)
        #expect(String(decoding: buffer, as: UTF8.self) == #"data: {"x":1}"#)
    }
}
