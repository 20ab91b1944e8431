import Testing

@testable import MicroHTTP

/// How the transport reads what libmicrohttpd parsed, on the bytes.
@Suite("Request reader")
struct RequestReaderTests {
    @Test(
        arguments: [
            ("0", 0), ("27", 27), (" 27\t", 27), ("18446744073709551615", UInt64.max), ("", nil), (" ", nil),
            ("2 7", nil), ("+5", nil), ("-1", nil), ("0x10", nil), ("18446744073709551616", nil),
            ("99999999999999999999", nil),
        ] as [(String, UInt64?)])
    func declaredLengthsAreDecimalDigitsBetweenBlanks(text: String, length: UInt64?) {
        let parsed = Array(text.utf8).withUnsafeBytes { RequestReader.parseLength($0) }
        #expect(parsed == length)
    }
}
