import Foundation
import ReMVVMJSON
import Testing

@testable import ReMVVM

/// `decodeActions(from:)` reads plain single envelopes without building the envelope object; for every
/// body, valid or not, it must give what parsing the whole document gives.
@Suite("Action envelope shortcut")
struct ActionEnvelopeShortcutTests {
    let registry = makeDefinition().actions

    static let bodies: [String] = [
        #"{"type":"test/increment"}"#,
        " \n{ \"type\" :\t\"test/increment\" } \r\n",
        #"{"type":"test/increment","payload":null}"#,
        #"{"type":"test/increment","payload":{}}"#,
        #"{"type":"test/setCount","payload":{"value":4}}"#,
        #"{"type":"test/setCount" , "payload" : { "value" : 4 } }"#,
        #"{"payload":{"value":4},"type":"test/setCount"}"#,
        #"{"type":"test/setCount","payload":{"value":"x"}}"#,
        #"{"type":"test/setCount","payload":[1]}"#,
        #"{"type":"test/setCount","payload":{}}"#,
        #"{"type":"test/increment","extra":1}"#,
        #"{"type":"test/increment","type":"test/setCount"}"#,
        #"{"typ\u0065":"test/increment"}"#,
        #"{"type":"test\/increment"}"#,
        #"{"type":"nope/never"}"#,
        #"{"type":"test/incremenT"}"#,
        #"{"type":"tést/incrément"}"#,
        "{\"type\":\"test/increment\u{01}\"}",
        #"{"type":3}"#,
        #"{"type":"test/increment",}"#,
        #"{"type":"test/increment"} x"#,
        #"{"type":"test/increment""#,
        #"{"type":"test/increment","payload":}"#,
        #"{"type":"test/increment","payload":{"a":1}"#,
        #"{"payload":{}}"#,
        "{}",
        "[]",
        #"[{"type":"test/increment"}]"#,
        "42",
        "",
        #"{"type":"test/rename","payload":{"name":"Ada \u00e9\n"}}"#,
    ]

    @Test(arguments: bodies)
    func givesWhatTheFullParseGives(body: String) {
        let bytes = Array(body.utf8)
        let shortcut = Result { () throws(ActionDecodingError) in try registry.decodeActions(from: bytes) }
        let reference = Result { () throws(ActionDecodingError) in try registry.decodeDocument(bytes) }
        switch (shortcut, reference) {
        case (.success(let actions), .success(let expected)):
            #expect(actions.map { String(describing: $0) } == expected.map { String(describing: $0) })
        case (.failure(let error), .failure(let expected)):
            #expect(error == expected)
        default:
            Issue.record("shortcut \(shortcut) but full parse \(reference)")
        }
    }

    /// The shortcut takes the shapes it is for, and leaves every other one to the full parse.
    @Test(arguments: [
        (#"{"type":"test/increment"}"#, true), (" {\"type\" : \"a\" , \"payload\" : [1] }\n", true),
        (#"{"type":"a","payload":null}"#, true), (#"{"payload":{},"type":"a"}"#, false),
        (#"{"type":"a","x":1}"#, false), (#"[{"type":"a"}]"#, false), (#"{"type":"a"} 1"#, false),
        // A type with an escape is left to the full parse, which unescapes it.
        (#"{"type":"a\/b"}"#, false), (#"{"type":"\u0061"}"#, false), (#"{"type":"é"}"#, true),
    ])
    func readsOnlyThePlainShapes(body: String, isRead: Bool) {
        var parser = JSONParser(bytes: Array(body.utf8), maxDepth: 512)
        #expect((parser.parseActionEnvelope() != nil) == isRead)
    }

    /// The depth limit counts the envelope around the payload, as the full parse does.
    @Test func payloadDepthCountsTheEnvelope() {
        let limit = 512
        for depth in [limit - 2, limit - 1, limit] {
            let payload = String(repeating: "[", count: depth) + String(repeating: "]", count: depth)
            let bytes = Array(#"{"type":"test/increment","payload":\#(payload)}"#.utf8)
            let shortcut = Result { () throws(ActionDecodingError) in try registry.decodeActions(from: bytes) }
            let reference = Result { () throws(ActionDecodingError) in try registry.decodeDocument(bytes) }
            #expect(String(describing: shortcut) == String(describing: reference), "depth \(depth)")
        }
    }
}
