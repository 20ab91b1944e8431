import ReMVVMJSON
import Testing

@Suite("Span.bytesEqual")
struct SpanBytesEqualTests {
    /// Every length around the eight-byte steps, equal and differing at each position, and differing lengths.
    @Test(arguments: 0...20)
    func agreesWithElementwiseEquality(length: Int) {
        let bytes = (0..<length).map { UInt8(truncatingIfNeeded: $0 &* 37 &+ 11) }
        #expect(Self.equal(bytes, Array(bytes)))
        for position in 0..<length {
            var changed = bytes
            changed[position] ^= 0x80
            #expect(!Self.equal(bytes, changed), "differs at \(position)")
        }
        #expect(!Self.equal(bytes, bytes + [0]))
    }

    @Test func comparesSlicesInPlace() {
        let text = Array("xx test/increment yy".utf8)
        let name = Array("test/increment".utf8)
        let inPlace = text.span.extracting(3..<17).bytesEqual(name.span)
        let shifted = text.span.extracting(2..<16).bytesEqual(name.span)
        #expect(inPlace)
        #expect(!shifted)
    }

    /// Spans cannot escape into `#expect`'s closures.
    private static func equal(_ first: [UInt8], _ second: [UInt8]) -> Bool { first.span.bytesEqual(second.span) }
}
