import ReMVVMJSON
import Testing

/// A document, a patch and either the expected result or the failure it must report.
struct PatchCase: Sendable, CustomTestStringConvertible {
    let name: String
    let document: String
    let patch: String
    let expected: Result<String, Failure>

    /// The error a failing case must report.
    struct Failure: Error, Equatable {
        let kind: JSONPatchError.Kind
        let operationIndex: Int
        let path: String
    }

    static func success(_ name: String, _ document: String, _ patch: String, _ expected: String) -> PatchCase {
        PatchCase(name: name, document: document, patch: patch, expected: .success(expected))
    }

    static func failure(
        _ name: String,
        _ document: String,
        _ patch: String,
        _ kind: JSONPatchError.Kind,
        index: Int = 0,
        path: String
    ) -> PatchCase {
        PatchCase(
            name: name,
            document: document,
            patch: patch,
            expected: .failure(Failure(kind: kind, operationIndex: index, path: path))
        )
    }

    var testDescription: String { name }
}

@Suite("JSONPatch.apply(to:)")
struct JSONPatchApplyTests {
    static let cases: [PatchCase] = [
        // RFC 6902 appendix A.
        .success(
            "A.1 add member", #"{"foo":"bar"}"#, #"[{"op":"add","path":"/baz","value":"qux"}]"#,
            #"{"baz":"qux","foo":"bar"}"#),
        .success(
            "A.2 add element", #"{"foo":["bar","baz"]}"#, #"[{"op":"add","path":"/foo/1","value":"qux"}]"#,
            #"{"foo":["bar","qux","baz"]}"#),
        .success(
            "A.3 remove member", #"{"baz":"qux","foo":"bar"}"#, #"[{"op":"remove","path":"/baz"}]"#,
            #"{"foo":"bar"}"#),
        .success(
            "A.4 remove element", #"{"foo":["bar","qux","baz"]}"#, #"[{"op":"remove","path":"/foo/1"}]"#,
            #"{"foo":["bar","baz"]}"#),
        .success(
            "A.5 replace", #"{"baz":"qux","foo":"bar"}"#, #"[{"op":"replace","path":"/baz","value":"boo"}]"#,
            #"{"baz":"boo","foo":"bar"}"#),
        .success(
            "A.6 move member", #"{"foo":{"bar":"baz","waldo":"fred"},"qux":{"corge":"grault"}}"#,
            #"[{"op":"move","from":"/foo/waldo","path":"/qux/thud"}]"#,
            #"{"foo":{"bar":"baz"},"qux":{"corge":"grault","thud":"fred"}}"#),
        .success(
            "A.7 move element", #"{"foo":["all","grass","cows","eat"]}"#,
            #"[{"op":"move","from":"/foo/1","path":"/foo/3"}]"#, #"{"foo":["all","cows","eat","grass"]}"#),
        .success(
            "A.8 test success", #"{"baz":"qux","foo":["a",2,"c"]}"#,
            #"[{"op":"test","path":"/baz","value":"qux"},{"op":"test","path":"/foo/1","value":2}]"#,
            #"{"baz":"qux","foo":["a",2,"c"]}"#),
        .failure(
            "A.9 test failure", #"{"baz":"qux"}"#, #"[{"op":"test","path":"/baz","value":"bar"}]"#,
            .testFailed, path: "/baz"),
        .success(
            "A.10 add nested object", #"{"foo":"bar"}"#,
            #"[{"op":"add","path":"/child","value":{"grandchild":{}}}]"#, #"{"child":{"grandchild":{}},"foo":"bar"}"#),
        .success(
            "A.11 ignore unknown members", #"{"foo":"bar"}"#,
            #"[{"op":"add","path":"/baz","value":"qux","xyz":123}]"#, #"{"baz":"qux","foo":"bar"}"#),
        .failure(
            "A.12 add to missing parent", #"{"foo":"bar"}"#, #"[{"op":"add","path":"/baz/bat","value":"qux"}]"#,
            .pathNotFound, path: "/baz/bat"),
        .success(
            "A.14 escape ordering", #"{"/":9,"~1":10}"#, #"[{"op":"test","path":"/~01","value":10}]"#,
            #"{"/":9,"~1":10}"#),
        .failure(
            "A.15 string is not number", #"{"/":9,"~1":10}"#, #"[{"op":"test","path":"/~01","value":"10"}]"#,
            .testFailed, path: "/~01"),
        .success(
            "A.16 append array value", #"{"foo":["bar"]}"#,
            #"[{"op":"add","path":"/foo/-","value":["abc","def"]}]"#, #"{"foo":["bar",["abc","def"]]}"#),
        // Whole-document and edge cases.
        .success("add at root replaces document", #"{"a":1}"#, #"[{"op":"add","path":"","value":[1]}]"#, "[1]"),
        .success("replace root", "1", #"[{"op":"replace","path":"","value":{"b":null}}]"#, #"{"b":null}"#),
        .success("add replaces existing member", #"{"a":1}"#, #"[{"op":"add","path":"/a","value":2}]"#, #"{"a":2}"#),
        .success("add at end index", "[1]", #"[{"op":"add","path":"/1","value":2}]"#, "[1,2]"),
        .success(
            "copy", #"{"a":{"b":[1]}}"#, #"[{"op":"copy","from":"/a/b","path":"/c"}]"#,
            #"{"a":{"b":[1]},"c":[1]}"#),
        .success("move to same place", #"{"a":1}"#, #"[{"op":"move","from":"/a","path":"/a"}]"#, #"{"a":1}"#),
        .success(
            "test compares numbers by value", #"{"a":[1,{"b":2.0}]}"#,
            #"[{"op":"test","path":"/a","value":[1.0,{"b":2}]}]"#, #"{"a":[1,{"b":2.0}]}"#),
        .success("test null", #"{"a":null}"#, #"[{"op":"test","path":"/a","value":null}]"#, #"{"a":null}"#),
        .success(
            "operations apply in order", "[]",
            #"[{"op":"add","path":"/-","value":1},{"op":"add","path":"/0","value":0},{"op":"remove","path":"/1"}]"#,
            "[0]"),
        .failure("remove missing member", #"{"a":1}"#, #"[{"op":"remove","path":"/b"}]"#, .pathNotFound, path: "/b"),
        .failure(
            "replace missing member", #"{"a":1}"#, #"[{"op":"replace","path":"/b","value":1}]"#,
            .pathNotFound, path: "/b"),
        .failure("index past end", "[1]", #"[{"op":"add","path":"/2","value":2}]"#, .pathNotFound, path: "/2"),
        .failure(
            "index with leading zero", "[1,2]", #"[{"op":"replace","path":"/01","value":2}]"#,
            .pathNotFound, path: "/01"),
        .failure("dash only appends", "[1]", #"[{"op":"remove","path":"/-"}]"#, .pathNotFound, path: "/-"),
        .failure(
            "descend into scalar", #"{"a":1}"#, #"[{"op":"add","path":"/a/b","value":2}]"#,
            .pathNotFound, path: "/a/b"),
        .failure("test missing path", "{}", #"[{"op":"test","path":"/a","value":null}]"#, .pathNotFound, path: "/a"),
        .failure(
            "copy from missing names from", #"{"a":1}"#, #"[{"op":"copy","from":"/x","path":"/b"}]"#,
            .pathNotFound, path: "/x"),
        .failure(
            "move from missing names from", #"{"a":1}"#, #"[{"op":"move","from":"/x/y","path":"/b"}]"#,
            .pathNotFound, path: "/x/y"),
        .failure(
            "move into own child", #"{"a":{"b":1}}"#, #"[{"op":"move","from":"/a","path":"/a/b/c"}]"#,
            .invalidOperation, path: "/a/b/c"),
        .failure("remove root", "{}", #"[{"op":"remove","path":""}]"#, .invalidOperation, path: ""),
        .failure(
            "error names the failing operation", #"{"a":1}"#,
            #"[{"op":"remove","path":"/a"},{"op":"remove","path":"/a"}]"#, .pathNotFound, index: 1, path: "/a"),
    ]

    @Test(arguments: cases)
    func appliesWithRFC6902Semantics(_ patchCase: PatchCase) throws {
        let document = try JSONValue(parsing: patchCase.document)
        let patch = try JSONPatch(parsing: JSONValue(parsing: patchCase.patch))
        switch patchCase.expected {
        case .success(let expected):
            #expect(try patch.apply(to: document) == JSONValue(parsing: expected))
        case .failure(let failure):
            let error = #expect(throws: JSONPatchError.self) { try patch.apply(to: document) }
            #expect(
                error.map { PatchCase.Failure(kind: $0.kind, operationIndex: $0.operationIndex, path: $0.path ?? "") }
                    == failure,
                "\(String(describing: error))")
        }
    }

    @Test
    func failedPatchLeavesTheOriginalUntouched() throws {
        let document: JSONValue = ["a": [1, 2], "b": true]
        let patch: JSONPatch = [.remove(path: ["a", "0"]), .test(path: ["b"], value: false)]
        #expect(throws: JSONPatchError.self) { try patch.apply(to: document) }
        #expect(document == ["a": [1, 2], "b": true])
    }

    @Test
    func errorDescriptionNamesOperationAndPath() {
        let patch: JSONPatch = [.test(path: ["a"], value: 1), .remove(path: ["missing"])]
        let error = #expect(throws: JSONPatchError.self) { try patch.apply(to: ["a": 1]) }
        #expect(
            error?.description
                == #"JSON Patch operation 1 at path "/missing": path not found: no member "missing" to remove"#)
    }

    @Test
    func emptyPatchReturnsTheDocument() throws {
        let document: JSONValue = ["x": [1]]
        #expect(try JSONPatch().apply(to: document) == document)
    }
}
