import ReMVVMJSON
import Testing

@_spi(ReMVVMServer) @testable import ReMVVM

/// The snapshot's two cached JSON forms: bytes from the byte encoder (or the tree when it declines) and the tree.
@Suite("ViewSnapshot JSON")
struct ViewSnapshotJSONTests {
    @Test
    func snapshotBytesMatchTheTreeWhetherOrNotTheFastPathDeclines() throws {
        let fast = ViewSnapshot(name: "fast", version: 1, viewModel: BytesView(writesKeyTwice: false))
        let declined = ViewSnapshot(name: "declined", version: 1, viewModel: BytesView(writesKeyTwice: true))
        #expect(try fast.jsonBytes() == Array(#"{"a":1,"b":2}"#.utf8))
        #expect(try declined.jsonBytes() == Array(#"{"a":3,"b":2}"#.utf8))
        #expect(try fast.jsonBytes() == fast.json().serialized())
        #expect(try declined.jsonBytes() == declined.json().serialized())
    }

    @Test
    func snapshotEncodingErrorsSurfaceFromJSONBytes() {
        let snapshot = ViewSnapshot(name: "broken", version: 1, viewModel: NaNView())
        for _ in 0..<2 {
            let error = #expect(throws: ViewEncodingError.self) { try snapshot.jsonBytes() }
            #expect(error?.view == "broken")
        }
        #expect(throws: ViewEncodingError.self) { try snapshot.json() }
    }
}

/// A view model that writes its members out of order, and optionally writes one key twice.
private struct BytesView: ViewModel {
    let writesKeyTwice: Bool

    private enum Keys: String, CodingKey { case a, b }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: Keys.self)
        try container.encode(2, forKey: .b)
        try container.encode(1, forKey: .a)
        if writesKeyTwice {
            try container.encode(3, forKey: .a)
        }
    }
}

/// A view model JSON cannot hold.
private struct NaNView: ViewModel {
    var value = Double.nan

    static func == (lhs: Self, rhs: Self) -> Bool { true }
}
