import ReMVVMJSON
import Testing

@Suite("JSONPointer")
struct JSONPointerTests {
    static let escapings: [([String], String)] = [
        ([], ""),
        ([""], "/"),
        (["a", "0"], "/a/0"),
        (["a/b"], "/a~1b"),
        (["m~n"], "/m~0n"),
        (["~1"], "/~01"),
        (["/~"], "/~1~0"),
        (["", ""], "//"),
        (["é", " "], "/é/ "),
    ]

    @Test(arguments: escapings)
    func escapesTildeAndSlashWhenWritten(_ tokens: [String], expected: String) {
        #expect(JSONPointer(tokens: tokens).description == expected)
    }

    @Test(arguments: escapings)
    func unescapesWhenParsed(_ expected: [String], text: String) {
        #expect(JSONPointer(text)?.tokens == expected)
    }

    @Test(arguments: ["a", "a/b", "/~", "/~2", "/a~", "/~a"])
    func rejectsMalformedPointers(_ text: String) {
        #expect(JSONPointer(text) == nil)
    }

    /// The examples of RFC 6901 section 5.
    @Test(
        arguments: [
            ("", nil),
            ("/foo", ["bar", "baz"]),
            ("/foo/0", "bar"),
            ("/", 0),
            ("/a~1b", 1),
            ("/c%d", 2),
            ("/e^f", 3),
            ("/g|h", 4),
            ("/i\\j", 5),
            ("/k\"l", 6),
            ("/ ", 7),
            ("/m~0n", 8),
        ] as [(String, JSONValue?)])
    func resolvesTheRFC6901Examples(_ text: String, expected: JSONValue?) throws {
        let document: JSONValue = [
            "foo": ["bar", "baz"], "": 0, "a/b": 1, "c%d": 2, "e^f": 3, "g|h": 4, "i\\j": 5, "k\"l": 6, " ": 7,
            "m~n": 8,
        ]
        let pointer = try #require(JSONPointer(text))
        #expect(document.value(at: pointer) == (expected ?? document))
    }

    @Test(arguments: ["01", "-", "+1", "1a", "", " 1", "99999999999999999999999"])
    func arrayIndicesMustBeCanonical(_ token: String) {
        let document: JSONValue = [10, 11]
        #expect(document.value(at: JSONPointer(tokens: [token])) == nil)
    }

    @Test
    func navigatesArraysAndObjects() {
        let document: JSONValue = ["items": [["id": 1], ["id": 2]]]
        #expect(document.value(at: ["items", "1", "id"]) == 2)
        #expect(document.value(at: ["items", "2"]) == nil)
        #expect(document.value(at: ["items", "0", "id", "x"]) == nil)
    }

    @Test
    func buildsRelatedPointers() {
        let pointer = JSONPointer.root.appending("a/b").appending(index: 3)
        #expect(pointer.description == "/a~1b/3")
        #expect(pointer.parent == ["a/b"])
        #expect(JSONPointer.root.parent == nil)
        #expect(pointer.isProperDescendant(of: ["a/b"]))
        #expect(!pointer.isProperDescendant(of: pointer))
        #expect(!JSONPointer(tokens: ["ab"]).isProperDescendant(of: ["a"]))
    }
}
