import Foundation
import ReMVVMJSON
import Testing

@_spi(ReMVVMServer) @testable import ReMVVM

/// `decodeActions(from:)` reads the envelopes in one pass without building the envelope objects; for every
/// body, valid or not, it must give what parsing the whole document gives (the oracle in `Oracles/`).
@Suite("Action envelope reader")
struct ActionEnvelopeReaderTests {
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
        #"{"type":"test/increment","type":3}"#,
        #"{"type":3,"type":"test/increment"}"#,
        #"{"type":"test/setCount","payload":{"value":1},"payload":{"value":2}}"#,
        #"{"type":"test/setCount","payload":{"value":1},"payload":null}"#,
        #"{"pay\u006coad":{"value":7},"type":"test/setCount"}"#,
        #"{"type":"test\u002fsetCount","payload":{"value":7}}"#,
        #"{"type":null}"#,
        #"{"type":["test/increment"]}"#,
        #"{"type":"test/increment","extra":[1,{"a":[]}],"more":"x"}"#,
        #"{"type":"test/increment" "payload":1}"#,
        #"{"type":"test/increment",1:2}"#,
        #"{"type" "test/increment"}"#,
        #"{"type":tru}"#,
        #"[{"type":"test/increment"},{"type":"test/setCount","payload":{"value":2}}]"#,
        #" [ {"type":"test/increment"} , {"payload":{"value":2},"type":"test/setCount"} ] "#,
        #"[{"type":"test/increment"},3]"#,
        #"[{"type":"test/increment"},"x",{"type":"nope/never"}]"#,
        #"[{"type":"nope/never"},"x"]"#,
        #"[{"type":"test/setCount","payload":{"value":"x"}},{"type":5}]"#,
        #"[{"type":5},{"type":"test/setCount","payload":{"value":"x"}}]"#,
        #"[{},{"type":"test/increment"}]"#,
        #"[{"type":"test/increment"},[]]"#,
        #"[{"type":"test/increment"},null]"#,
        #"[{"type":"test/increment"},{"type":"nope/never"} x"#,
        #"[{"type":5},"#,
        #"[{"type":5}]]"#,
        #"[[{"type":"test/increment"}]]"#,
        #"[,]"#,
        #"[{"type":"test/increment"},]"#,
        "\"test/increment\"",
        "null",
        "true",
        "{",
        "[",
        "\u{FEFF}{\"type\":\"test/increment\"}",
    ]

    @Test(arguments: bodies)
    func givesWhatTheFullParseGives(body: String) {
        expectSameOutcome(Array(body.utf8))
    }

    /// Every body above with one byte deleted, replaced or inserted, at a seeded random place: mostly invalid
    /// bodies, each of which must fail exactly as the full parse fails.
    @Test(arguments: [1, 2, 3])
    func givesWhatTheFullParseGivesForMutatedBodies(seed: UInt64) {
        var random = SplitMix(seed: seed)
        let alphabet = Array(#"{}[]":, \1tnx/"#.utf8) + [0x01, 0xC3, 0xA9, 0xFF]
        for _ in 0..<20 {
            for body in Self.bodies {
                var bytes = Array(body.utf8)
                let place = Int(random.next() % UInt64(bytes.count + 1))
                let byte = alphabet[Int(random.next() % UInt64(alphabet.count))]
                switch (random.next() % 3, place < bytes.count) {
                case (0, true): bytes.remove(at: place)
                case (1, true): bytes[place] = byte
                default: bytes.insert(byte, at: place)
                }
                expectSameOutcome(bytes)
            }
        }
    }

    private func expectSameOutcome(_ bytes: [UInt8]) {
        let read = Result { () throws(ActionDecodingError) in try registry.decodeActions(from: bytes) }
        let reference = Result { () throws(ActionDecodingError) in try registry.decodeByParsingTheDocument(bytes) }
        switch (read, reference) {
        case (.success(let actions), .success(let expected)):
            #expect(actions.map { String(describing: $0) } == expected.map { String(describing: $0) })
        case (.failure(let error), .failure(let expected)):
            #expect(error == expected)
        default:
            Issue.record("reader \(read) but full parse \(reference) for \(String(decoding: bytes, as: UTF8.self))")
        }
    }

    /// A type without escapes is handed back as where its bytes are, so no string is made for it; an escaped
    /// one, or any other value, is parsed.
    @Test(arguments: [
        (#"{"type":"test/increment"}"#, true), (" {\"payload\" : [1], \"type\" : \"a\" }\n", true),
        (#"{"type":"é"}"#, true), (#"{"type":"a\/b"}"#, false), (#"{"type":"\u0061"}"#, false),
        (#"{"type":1}"#, false),
    ])
    func readsAPlainTypeInPlace(body: String, inPlace: Bool) throws {
        var parser = JSONParser(bytes: Array(body.utf8), maxDepth: 512)
        guard case .single(.action(type: let type?, payload: _)) = try parser.parseActionEnvelopes() else {
            Issue.record("not read as one envelope with a type")
            return
        }
        if case .utf8 = type {
            #expect(inPlace)
        } else {
            #expect(!inPlace)
        }
    }

    /// The depth limit counts the envelope and the batch around the payload, as the full parse does.
    @Test(arguments: [false, true])
    func payloadDepthCountsTheEnvelope(inBatch: Bool) {
        let limit = 512
        for depth in [limit - 3, limit - 2, limit - 1, limit] {
            let payload = String(repeating: "[", count: depth) + String(repeating: "]", count: depth)
            let envelope = #"{"type":"test/increment","payload":\#(payload)}"#
            let bytes = Array((inBatch ? "[\(envelope)]" : envelope).utf8)
            let read = Result { () throws(ActionDecodingError) in try registry.decodeActions(from: bytes) }
            let reference = Result { () throws(ActionDecodingError) in try registry.decodeByParsingTheDocument(bytes) }
            #expect(String(describing: read) == String(describing: reference), "depth \(depth)")
        }
    }
}

/// A small seeded generator (SplitMix64), so a failing mutation can be replayed.
private struct SplitMix {
    private var state: UInt64

    init(seed: UInt64) { state = seed }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var value = state
        value = (value ^ (value >> 30)) &* 0xBF58_476D_1CE4_E5B9
        value = (value ^ (value >> 27)) &* 0x94D0_49BB_1331_11EB
        return value ^ (value >> 31)
    }
}
