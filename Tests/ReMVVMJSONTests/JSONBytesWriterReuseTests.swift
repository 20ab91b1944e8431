import Testing

@testable import ReMVVMJSON

/// An encoder a value kept after its encoding, for the test that it cannot write into a later encoding.
// Only `aKeptEncoderCannotWriteIntoALaterEncoding` touches it, from one task.
nonisolated(unsafe) private var keptEncoder: (any Encoder)?

/// Keeps its encoder after writing `{"kept":1}`.
private struct KeepsItsEncoder: Encodable {
    private enum Keys: String, CodingKey { case kept }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: Keys.self)
        try container.encode(1, forKey: .kept)
        keptEncoder = encoder
    }
}

/// Writes through the kept encoder before writing its own `{"own":2}`.
private struct WritesThroughTheKeptEncoder: Encodable {
    private enum Keys: String, CodingKey { case own, stray }

    func encode(to encoder: any Encoder) throws {
        if let kept = keptEncoder {
            var stray = kept.container(keyedBy: Keys.self)
            try? stray.encode("stray", forKey: .stray)
        }
        var container = encoder.container(keyedBy: Keys.self)
        try container.encode(2, forKey: .own)
    }
}

/// The byte encoder reuses one writer between encodings (`JSONBytesWriterCache`); whatever an encoding did,
/// failed or leaked, the next one must still write exactly the tree's bytes.
@Suite("Byte encoder writer reuse")
struct JSONBytesWriterReuseTests {
    typealias Fixtures = EncodingFixtures
    typealias Bytes = BytesEncodingFixtures

    @Test func encodingsAfterDeclinedOnesMatchTheTree() throws {
        let counter = Fixtures.Counter(counter: "5")
        for _ in 0..<3 {
            #expect(JSONBytesEncoder.encode(Bytes.SameKeyTwice()) == nil)
            #expect(JSONBytesEncoder.encode(Bytes.LateNestedWrite()) == nil)
            #expect(JSONBytesEncoder.encode(Bytes.HoldsNaN()) == nil)
            #expect(JSONBytesEncoder.encode(counter) == (try BytesCase.tree(counter)))
            #expect(JSONBytesEncoder.encode(Bytes.OrderedNesting()) == (try BytesCase.tree(Bytes.OrderedNesting())))
        }
    }

    @Test func aKeptEncoderCannotWriteIntoALaterEncoding() throws {
        #expect(
            JSONBytesEncoder.encode(KeepsItsEncoder()).map { String(decoding: $0, as: UTF8.self) } == #"{"kept":1}"#)
        let later = try #require(JSONBytesEncoder.encode(WritesThroughTheKeptEncoder()))
        #expect(String(decoding: later, as: UTF8.self) == #"{"own":2}"#)
        keptEncoder = nil
    }

    @Test func outputsLargerThanTheKeptCapacityStillMatchTheTree() throws {
        let large = ["text": String(repeating: "x", count: JSONBytesWriterCache.maxKeptCapacity * 2)]
        let small = Fixtures.Counter(counter: "7")
        #expect(JSONBytesEncoder.encode(large) == (try BytesCase.tree(large)))
        #expect(JSONBytesEncoder.encode(small) == (try BytesCase.tree(small)))
        #expect(JSONBytesEncoder.encode(large) == (try BytesCase.tree(large)))
    }

    @Test func concurrentEncodingsMatchTheTree() async throws {
        try await withThrowingTaskGroup(of: Void.self) { group in
            for task in 0..<8 {
                group.addTask {
                    var generator = SeededGenerator(seed: 0xC0DE + UInt64(task))
                    for _ in 0..<100 {
                        let model = RandomCodableModel.random(using: &generator)
                        let tree = try BytesCase.tree(model)
                        #expect(JSONBytesEncoder.encode(model) == tree)
                    }
                }
            }
            try await group.waitForAll()
        }
    }
}
