import ReMVVMJSON
import Testing

@Suite("JSONPatch documents")
struct JSONPatchDocumentTests {
    static let everyOperation: JSONPatch = [
        .add(path: ["a/b"], value: 1),
        .remove(path: ["c", "0"]),
        .replace(path: [], value: ["x": .null]),
        .move(from: ["m~n"], path: ["d"]),
        .copy(from: ["e"], path: ["f", "-"]),
        .test(path: ["g"], value: [true]),
    ]

    @Test
    func writesOperationsAsRFC6902Objects() {
        #expect(
            Self.everyOperation.jsonValue.jsonString
                == #"[{"op":"add","path":"/a~1b","value":1},{"op":"remove","path":"/c/0"},"#
                + #"{"op":"replace","path":"","value":{"x":null}},{"from":"/m~0n","op":"move","path":"/d"},"#
                + #"{"from":"/e","op":"copy","path":"/f/-"},{"op":"test","path":"/g","value":[true]}]"#
        )
    }

    @Test
    func writesTheSameBytesDirectlyAsThroughTheTree() {
        let escaped: JSONPatch = [.add(path: ["quote\"", "tab\t"], value: ["é": "line\nbreak", "n": 1.5])]
        for patch in [Self.everyOperation, escaped, JSONPatch()] {
            #expect(patch.serialized() == patch.jsonValue.serialized())
        }
    }

    @Test
    func readsBackWhatItWrites() throws {
        let reread = try JSONPatch(parsing: JSONValue(parsing: Self.everyOperation.jsonValue.serialized()))
        #expect(reread == Self.everyOperation)
    }

    @Test
    func nullIsAValidValue() throws {
        let patch = try JSONPatch(parsing: [["op": "add", "path": "/a", "value": .null]])
        #expect(patch == [.add(path: ["a"], value: .null)])
    }

    @Test(
        arguments: [
            (#"{"op":"add"}"#, 0, nil),
            (#"[1]"#, 0, nil),
            (#"[{"path":"/a"}]"#, 0, nil),
            (#"[{"op":"remove","path":"/a"},{"op":"jump","path":"/a"}]"#, 1, "/a"),
            (#"[{"op":"add","path":"/a"}]"#, 0, "/a"),
            (#"[{"op":"test","path":"/a"}]"#, 0, "/a"),
            (#"[{"op":"add","path":"a","value":1}]"#, 0, "a"),
            (#"[{"op":"add","path":1,"value":1}]"#, 0, nil),
            (#"[{"op":"move","path":"/a"}]"#, 0, "/a"),
            (#"[{"op":"copy","from":"x","path":"/a"}]"#, 0, "/a"),
            (#"[{"op":"copy","from":7,"path":"/a"}]"#, 0, "/a"),
        ] as [(String, Int, String?)])
    func rejectsMalformedDocuments(_ text: String, index: Int, path: String?) throws {
        let document = try JSONValue(parsing: text)
        let error = #expect(throws: JSONPatchError.self) { try JSONPatch(parsing: document) }
        #expect(error?.kind == .malformedOperation)
        #expect(error?.operationIndex == index)
        #expect(error?.path == path)
    }
}
