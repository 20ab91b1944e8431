import HTTPTestClient
import Testing

@testable import MicroHTTP

@Suite("Limits and hostile input")
struct LimitsTests {
    private static let defaultMemory = HTTPServerConfiguration.defaultConnectionMemoryLimit
    private static let bodySize: @Sendable (HTTPRequest, Responder) -> Void = { request, responder in
        responder.respond(.text("\(request.body.count)"))
    }

    @Test func declaredBodyOverTheLimitGets413AndTheServerKeepsServing() throws {
        let called = Shared(0)
        try withServer(
            { $0.maxBodySize = 100 },
            handler: { request, responder in
                called.update { $0 += 1 }
                responder.respond(.text("\(request.body.count)"))
            }
        ) { server in
            let client = try TestHTTPClient(port: server.port)
            let response = try client.request("POST", "/upload", body: [UInt8](repeating: 0x61, count: 101))
            #expect(response.status == 413)
            #expect(response.header("Content-Type") == "application/problem+json")
            #expect(
                response.text
                    == #"{"type":"about:blank","title":"Payload Too Large","status":413,"detail":"request body exceeds 100 bytes"}"#
            )
            #expect(called.value == 0)
            let fresh = try TestHTTPClient(port: server.port)
            let accepted = try fresh.request("POST", "/upload", body: [UInt8](repeating: 0x61, count: 100))
            #expect(accepted.status == 200 && accepted.text == "100")
        }
    }

    @Test func hugeDeclaredLengthIsAnsweredWithoutWaitingForTheBody() throws {
        try withServer({ $0.maxBodySize = 100 }, handler: Self.bodySize) { server in
            let client = try TestHTTPClient(port: server.port)
            try client.send("POST /upload HTTP/1.1\r\nHost: x\r\nContent-Length: 99999999999\r\n\r\n")
            #expect(try client.readResponse().status == 413)
        }
    }

    @Test func chunkedBodyOverTheLimitGets413() throws {
        try withServer({ $0.maxBodySize = 10 }, handler: Self.bodySize) { server in
            let client = try TestHTTPClient(port: server.port)
            let chunk = String(repeating: "z", count: 8)
            try client.send(
                "POST /upload HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n"
                    + "8\r\n\(chunk)\r\n8\r\n\(chunk)\r\n0\r\n\r\n")
            #expect(try client.readResponse().status == 413)
            let small = try TestHTTPClient(port: server.port)
            try small.send(
                "POST /upload HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n")
            #expect(try small.readResponse().text == "5")
        }
    }

    @Test(arguments: [
        "\u{0}\u{1}\u{2}garbage\r\n\r\n",
        "GET\r\n\r\n",
        "GET / HTTP/9.9\r\n\r\n",
        "GET / HTTP/1.1\r\nHost: x\r\nContent-Length: banana\r\n\r\n",
        "GET / HTTP/1.1\r\nBad Header Line\r\n\r\n",
        "GET /" + String(repeating: "a", count: 20_000) + " HTTP/1.1\r\nHost: x\r\n\r\n",
    ])
    func malformedRequestsDoNotCrashAndTheNextRequestWorks(_ garbage: String) throws {
        try withServer(handler: Self.bodySize) { server in
            let bad = try TestHTTPClient(port: server.port)
            try? bad.send(garbage)
            // Until libmicrohttpd has answered and closed it: a server stopped while the library still reads a
            // request it answers itself can crash in the library (RELIABILITY.md), which is not what this tests.
            _ = bad.waitForClose(timeout: .seconds(5))
            let good = try TestHTTPClient(port: server.port)
            #expect(try good.request("GET", "/").status == 200)
        }
    }

    @Test func halfSentRequestsThatDisconnectDoNotCrash() throws {
        try withServer(handler: Self.bodySize) { server in
            for partial in ["GET / HT", "POST / HTTP/1.1\r\nContent-Length: 50\r\n\r\nonly-part"] {
                let client = try TestHTTPClient(port: server.port)
                try client.send(partial)
                client.close()
            }
            #expect(try TestHTTPClient(port: server.port).request("POST", "/", body: [1, 2, 3]).text == "3")
        }
    }

    @Test func connectionsBeyondThePerClientLimitAreAnswered429AndClosed() throws {
        try withServer({ $0.perClientConnectionLimit = 2 }, handler: { _, _ in }) { server in
            let parked = try (0..<2).map { _ in try TestHTTPClient(port: server.port) }
            for client in parked {
                try client.sendRequest("GET", "/poll")
            }
            #expect(eventually { server.suspendedConnections == 2 })
            let third = try TestHTTPClient(port: server.port)
            let answer = try third.readResponse()
            #expect(answer.status == 429)
            #expect(third.waitForClose(timeout: .seconds(2)))
        }
    }

    @Test func requestHeadTooBigForTheConnectionMemoryGets431() throws {
        let memory = HTTPServerConfiguration.defaultConnectionMemoryLimit
        try withServer(handler: Self.bodySize) { server in
            let client = try TestHTTPClient(port: server.port)
            let tooBig = String(repeating: "c", count: memory + 1000)
            let response = try client.request("GET", "/", headers: [("Cookie", tooBig)])
            #expect(response.status == 431)
            let roomier = try TestHTTPClient(port: server.port)
            // libmicrohttpd keeps a Cookie field twice: a quarter of the memory leaves the answer its room.
            let fits = try roomier.request("GET", "/", headers: [("Cookie", String(repeating: "c", count: memory / 4))])
            #expect(fits.status == 200)
        }
    }

    /// libmicrohttpd accepts a head that only just fits the connection's memory, and then has no room for the
    /// answer: it used to close the connection after the handler ran, so an applied action went unanswered, and
    /// later closed such requests unhandled and unanswered. Across head sizes up to and past the limit, every
    /// request is now answered: handled (200), or a 431, the transport's problem (written past libmicrohttpd when
    /// the pool has no room) or libmicrohttpd's own past the limit, and none of those is handled. The sizes run
    /// around the default memory's limit and an 8 KiB pool's (a `Cookie` field counts about twice).
    @Test(arguments: [
        (defaultMemory, "X-Pad", "", (defaultMemory - 2_600)...(defaultMemory + 200)),
        (defaultMemory, "Cookie", "c=", (defaultMemory / 2 - 1_700)...(defaultMemory / 2 + 300)),
        (8192, "X-Pad", "", (8192 - 2_600)...(8192 + 200)),
    ])
    func everyRequestIsAnsweredWhateverItsHeadSize(memory: Int, field: String, prefix: String, sizes: ClosedRange<Int>)
        throws
    {
        try withCountingServer(memory: memory) { server, handled in
            var answered = 0
            var refusedByTheTransport = 0
            for size in stride(from: sizes.lowerBound, through: sizes.upperBound, by: 16) {
                let value = prefix + String(repeating: "v", count: size)
                let client = try TestHTTPClient(port: server.port)
                let response = try client.request("POST", "/action", headers: [(field, value)], body: Array("{}".utf8))
                switch response.status {
                case 200:
                    answered += 1
                case 431 where response.header("Content-Type") == "application/problem+json":
                    refusedByTheTransport += 1
                    #expect(response.header("X-Content-Type-Options") == "nosniff")
                    #expect(response.header("Cache-Control") == "no-store")
                    #expect(response.header("Connection") == "close")
                    #expect(response.text.contains("\(memory) bytes"))
                case 431:
                    break
                default:
                    Issue.record("\(field) of \(size) bytes: status \(response.status)")
                }
            }
            #expect(handled.value == answered)
            #expect(answered > 0)
            #expect(refusedByTheTransport > 0)
        }
    }

    /// libmicrohttpd reads the request line into the connection's memory before the header fields, and a URL that
    /// nearly fills it left no room for any answer: the connection waited for its idle timeout. Every URL length,
    /// up to and past the memory, is answered well before that timeout: handled, or a 414 problem, or
    /// libmicrohttpd's own 414 for a request line longer than the memory itself.
    @Test(arguments: [defaultMemory, 8192])
    func everyURLLengthIsAnswered(memory: Int) throws {
        let connectionMemory = ConnectionMemory(limit: memory)
        let longest = connectionMemory.longestURL
        try withCountingServer(memory: memory) { server, handled in
            var statuses: [Int: Int] = [:]
            var problems = 0
            for length in stride(from: longest - 1_500, through: memory + 300, by: 20) {
                let path = "/q?x=" + String(repeating: "a", count: length - 5)
                let admitted = connectionMemory.admits(url: URLShape(length: length, arguments: 1))
                let client = try TestHTTPClient(port: server.port, timeout: .seconds(10))
                let response = try client.request("GET", path)
                statuses[response.status, default: 0] += 1
                switch response.status {
                case 200:
                    #expect(admitted)
                case 414 where response.header("Content-Type") == "application/problem+json":
                    problems += 1
                    #expect(!admitted)
                    #expect(response.header("Connection") == "close")
                    #expect(response.text.contains("(\(length) bytes, 1 query argument)"))
                case 414:
                    // libmicrohttpd's own: the request line does not fit the memory at all (within the sweep's
                    // 20-byte step of it).
                    let requestLine = "GET  HTTP/1.1\r\n".utf8.count + length
                    #expect(requestLine > memory - 20)
                    #expect(response.header("Connection") == "close")
                default:
                    Issue.record("URL of \(length) bytes: status \(response.status)")
                }
            }
            #expect(handled.value == statuses[200])
            #expect(statuses[200, default: 0] > 0)
            #expect(problems > 0)
            let next = try TestHTTPClient(port: server.port)
            #expect(try next.request("GET", "/after").status == 200)
        }
    }

    /// libmicrohttpd keeps an entry of the connection's memory for each query argument as soon as the request line
    /// is read. Many arguments used to get its own HTML 431, and more of them no answer until the idle timeout (a
    /// generated poll with twenty `since` values found it). Across argument counts and URL lengths, beside the
    /// header fields a fuzzer sends, every request is now handled when ``ConnectionMemory/admits(url:)`` says so
    /// and refused with a 414 problem when not.
    @Test(arguments: [defaultMemory, 8192])
    func everyQueryIsAnsweredWhateverItsArguments(memory: Int) throws {
        let connectionMemory = ConnectionMemory(limit: memory)
        let fields = [
            ("User-Agent", "python-requests/2.32.3"), ("Accept-Encoding", "gzip, deflate"), ("Accept", "*/*"),
            ("Authorization", "Bearer " + String(repeating: "0", count: 32)), ("X-Schemathesis-TestCaseId", "CA7aba"),
        ]
        try withCountingServer(memory: memory) { server, handled in
            var admittedCount = 0
            var refused = 0
            for arguments in [1, 5, 10, 20, 30, 50, 80, 120] {
                let query = "/poll?" + Array(repeating: "s=1", count: arguments).joined(separator: "&")
                for length in stride(from: query.utf8.count, through: memory - 100, by: 100) {
                    let path = query + String(repeating: "x", count: length - query.utf8.count)
                    let admitted = connectionMemory.admits(url: URLShape(length: length, arguments: arguments))
                    let client = try TestHTTPClient(port: server.port, timeout: .seconds(10))
                    let response = try client.request("GET", path, headers: fields)
                    if admitted {
                        admittedCount += 1
                        #expect(response.status == 200, "\(arguments) arguments in \(length) bytes")
                    } else {
                        refused += 1
                        #expect(response.status == 414, "\(arguments) arguments in \(length) bytes")
                        #expect(response.header("Content-Type") == "application/problem+json")
                        #expect(
                            response.text.contains(
                                arguments == 1 ? "1 query argument)" : "\(arguments) query arguments)"))
                    }
                }
            }
            #expect(handled.value == admittedCount)
            #expect(admittedCount > 0)
            #expect(refused > 0)
        }
    }

    /// A server with `memory` bytes per connection that answers every request it handles with 200, counting them.
    private func withCountingServer(memory: Int, _ body: (HTTPServer, Shared<Int>) throws -> Void) throws {
        let handled = Shared(0)
        try withServer(
            { $0.connectionMemoryLimit = memory },
            handler: { _, responder in
                handled.update { $0 += 1 }
                responder.respond(.text("applied"))
            }
        ) { server in try body(server, handled) }
    }

    /// libmicrohttpd 0.9.75 sometimes misses the end of stream of a client that leaves mid-request; the idle
    /// timeout is what reclaims such connections.
    @Test func clientsLeavingMidRequestAreReclaimedByTheIdleTimeout() throws {
        try withServer({ $0.connectionTimeout = 1 }, handler: Self.bodySize) { server in
            for _ in 0..<20 {
                let client = try TestHTTPClient(port: server.port)
                try client.send("POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\nhalf")
                client.close()
            }
            #expect(eventually(timeout: .seconds(5)) { server.openConnections == 0 })
        }
    }
}
