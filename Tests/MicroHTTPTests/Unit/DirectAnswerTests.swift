import Testing

@testable import MicroHTTP

/// The bytes of an answer the transport writes past libmicrohttpd.
@Suite("Direct answer")
struct DirectAnswerTests {
    @Test func anAnswerIsACompleteHTTPMessageThatClosesTheConnection() {
        let response = HTTPResponse.problem(status: 414, title: "URI Too Long", detail: "too long")
        let bytes = DirectAnswer.encoded(response, date: "Thu, 26 Nov 2026 14:50:00 GMT")
        let text = String(decoding: bytes, as: UTF8.self)
        let parts = text.split(separator: "\r\n\r\n", omittingEmptySubsequences: false)
        #expect(parts.count == 2)
        let lines = parts[0].split(separator: "\r\n")
        #expect(lines.first == "HTTP/1.1 414 URI Too Long")
        #expect(lines.contains("Date: Thu, 26 Nov 2026 14:50:00 GMT"))
        #expect(lines.contains("Content-Type: application/problem+json"))
        #expect(lines.contains("X-Content-Type-Options: nosniff"))
        #expect(lines.contains("Cache-Control: no-store"))
        #expect(lines.contains("Connection: close"))
        #expect(lines.contains("Content-Length: \(parts[1].utf8.count)"))
        #expect(parts[1].contains(#""status":414"#))
    }

    @Test func theAnswerWritesItsOwnLengthAndConnectionFields() {
        let response = HTTPResponse(
            status: 431, headers: ["Content-Length": "99", "Connection": "keep-alive"], body: .bytes(Array("ab".utf8)))
        let text = String(decoding: DirectAnswer.encoded(response, date: "d"), as: UTF8.self)
        #expect(text.hasPrefix("HTTP/1.1 431 Request Header Fields Too Large\r\n"))
        #expect(!text.contains("99"))
        #expect(!text.contains("keep-alive"))
        #expect(text.hasSuffix("Content-Length: 2\r\nConnection: close\r\n\r\nab"))
    }
}
