import Glibc
import Testing

@testable import MicroHTTP

/// The transport's budgets against a client that holds what it can: connections per address, the whole-head and
/// whole-body deadlines, conflicting `Content-Length` fields, and the stream buffers' server-wide total. Part of the
/// abuse suite; serialized, as the first case opens over 10,000 sockets.
@Suite("Transport budgets", .serialized)
struct BudgetTests {
    private static let answerOK: @Sendable (HTTPRequest, Responder) -> Void = { request, responder in
        if request.path != "/poll" { responder.respond(.text("\(request.body.count)")) }
    }

    @Test func slowConnectionsFromOneAddressBeyondTheTotalLimitLeaveAnotherAddressServed() throws {
        // More than the default total connection limit (10,000), all from one address, with default flags.
        let count = HTTPServerConfiguration().connectionLimit + 50
        try raiseDescriptorLimit(to: count + 2_000)
        try withServer(handler: Self.answerOK) { server in
            var slow: [LoopbackSocket] = []
            slow.reserveCapacity(count)
            defer { for socket in slow { socket.close() } }
            for _ in 0..<count {
                let socket = try LoopbackSocket(from: "127.0.0.2", to: server.port)
                socket.send("G")  // The start of a head that never comes; refused sockets may be closed already.
                slow.append(socket)
            }
            let limit = HTTPServerConfiguration.defaultPerClientConnectionLimit
            #expect(
                eventually(timeout: .seconds(30)) { server.statistics.connectionsOverClientLimit >= count - limit })
            let probe = try LoopbackSocket(from: "127.0.0.3", to: server.port, timeout: .seconds(1))
            probe.send("GET /probe HTTP/1.1\r\nHost: test\r\n\r\n")
            #expect(probe.readAnswer(timeout: .seconds(1))?.status == 200)
            // One more from the flooding address is refused with an answer, not left waiting.
            let refused = try LoopbackSocket(from: "127.0.0.2", to: server.port)
            let answer = refused.readAnswer(timeout: .seconds(2))
            #expect(answer?.status == 429)
            #expect(answer?.head.lowercased().contains("retry-after: 1") == true)
        }
    }

    @Test func aTrustedProxyIsExemptFromThePerAddressLimitAndOthersGet429() throws {
        try withServer(
            { configuration in
                configuration.perClientConnectionLimit = 2
                configuration.trustedProxies = ["127.0.0.4"]
            },
            handler: { request, responder in
                if request.path != "/poll" { responder.respond(.text("\(request.isFromTrustedProxy)")) }
            }
        ) { server in
            for (address, trusted) in [("127.0.0.4", "true"), ("127.0.0.5", "false")] {
                let socket = try LoopbackSocket(from: address, to: server.port)
                socket.send("GET /who HTTP/1.1\r\nHost: test\r\nConnection: close\r\n\r\n")
                #expect(socket.readAnswer(timeout: .seconds(2))?.body == trusted)
                #expect(socket.readUntilClosed(timeout: .seconds(2)).closed)
            }
            let proxied = try (0..<3).map { _ in try LoopbackSocket(from: "127.0.0.4", to: server.port) }
            let direct = try (0..<2).map { _ in try LoopbackSocket(from: "127.0.0.5", to: server.port) }
            for socket in proxied + direct { socket.send("GET /poll HTTP/1.1\r\nHost: test\r\n\r\n") }
            #expect(eventually { server.suspendedConnections == 5 })
            let third = try LoopbackSocket(from: "127.0.0.5", to: server.port)
            let answer = third.readAnswer(timeout: .seconds(2))
            #expect(answer?.status == 429)
            #expect(answer?.head.lowercased().contains("retry-after: 1") == true)
            #expect(answer?.head.contains("application/problem+json") == true)
            #expect(answer?.body.contains(#""status":429"#) == true)
            #expect(third.readUntilClosed(timeout: .seconds(2)).closed)
            #expect(server.statistics.connectionsOverClientLimit == 1)
        }
        #expect(HTTPServerConfiguration(trustedProxies: ["10.0.0.2"]).trusts(proxy: "10.0.0.2"))
        #expect(!HTTPServerConfiguration(trustedProxies: ["10.0.0.2"]).trusts(proxy: "10.0.0.3"))
    }

    @Test(arguments: [
        ("head", "GET /slow HTTP/1.1\r\nHost: test\r\nX-Padding: abcdefghijklmnopqrstuvwxyz\r\n\r\n"),
        ("body", "POST /slow HTTP/1.1\r\nHost: test\r\nContent-Length: 100\r\n\r\n"),
    ])
    func aRequestDribbledAByteASecondIsAnswered408AtItsDeadline(part: String, head: String) throws {
        try withServer(
            { configuration in
                configuration.requestHeadTimeout = .seconds(2)
                configuration.requestBodyTimeout = .seconds(2)
            },
            handler: Self.answerOK
        ) { server in
            let socket = try LoopbackSocket(from: "127.0.0.1", to: server.port)
            // The head whole for the body's case (its deadline starts there), then a byte a second, 10 at most.
            let dribbled: [UInt8]
            if part == "body" {
                socket.send(head)
                dribbled = Array(repeating: UInt8(ascii: "x"), count: 10)
            } else {
                dribbled = Array(head.utf8.prefix(10))
            }
            let start = ContinuousClock.now
            var answer: (text: String, closed: Bool)?
            for byte in dribbled {
                socket.send([byte])
                if socket.isReadable(within: .seconds(1)) {
                    answer = socket.readUntilClosed(timeout: .seconds(2))
                    break
                }
            }
            #expect(answer?.text.hasPrefix("HTTP/1.1 408") == true)
            #expect(answer?.text.contains("request \(part) did not arrive") == true)
            #expect(answer?.closed == true)
            #expect(start.duration(to: .now) < .seconds(6))
            let statistics = server.statistics
            #expect((part == "head" ? statistics.requestHeadTimeouts : statistics.requestBodyTimeouts) == 1)
        }
    }

    @Test func aKeepAliveConnectionStaysWithinItsDeadlinesAcrossRequests() throws {
        try withServer({ $0.requestHeadTimeout = .seconds(1) }, handler: Self.answerOK) { server in
            let socket = try LoopbackSocket(from: "127.0.0.1", to: server.port)
            for _ in 0..<3 {
                // Each request is prompt; the connection outlives the head deadline between them.
                socket.send("POST /echo HTTP/1.1\r\nHost: test\r\nContent-Length: 2\r\n\r\nab")
                #expect(socket.readAnswer(timeout: .seconds(2))?.status == 200)
                usleep(700_000)
            }
            #expect(server.statistics.requestHeadTimeouts == 0)
        }
    }

    @Test func differingContentLengthFieldsAreAnswered400() throws {
        let handled = Shared(0)
        try withServer(
            handler: { request, responder in
                handled.update { $0 += 1 }
                responder.respond(.text("\(request.body.count)"))
            }
        ) { server in
            let socket = try LoopbackSocket(from: "127.0.0.1", to: server.port)
            socket.send("POST /echo HTTP/1.1\r\nHost: test\r\nContent-Length: 3\r\nContent-Length: 4\r\n\r\nabcd")
            let answer = socket.readAnswer(timeout: .seconds(2))
            #expect(answer?.status == 400)
            #expect(answer?.head.contains("application/problem+json") == true)
            #expect(answer?.body.contains("Content-Length fields that differ") == true)
            #expect(handled.value == 0)
            #expect(server.statistics.conflictingContentLengths == 1)
            // Equal ones state one length (RFC 9112 §6.3 allows taking them as one).
            let equal = try LoopbackSocket(from: "127.0.0.1", to: server.port)
            equal.send("POST /echo HTTP/1.1\r\nHost: test\r\nContent-Length: 3\r\nContent-Length: 3\r\n\r\nabc")
            let accepted = equal.readAnswer(timeout: .seconds(2))
            #expect(accepted?.status == 200)
            #expect(accepted?.body == "3")
        }
    }

    @Test func aDeclaredBodyIsNotReservedUpFrontButGrowsAsItArrives() {
        var context = RequestContext(maxBodySize: 1 << 20)
        context.expectBody(length: 1 << 20)
        let chunk = [UInt8](repeating: 7, count: 3)
        #expect(chunk.withUnsafeBytes { context.receive($0) })
        #expect(context.bodyCapacity < 2 * RequestContext.initialBodyCapacity)
        let large = [UInt8](repeating: 9, count: 100_000)
        for _ in 0..<10 {
            #expect(large.withUnsafeBytes { context.receive($0) })
        }
        let body = context.takeBody()
        #expect(body.count == 1_000_003)
        #expect(body.prefix(3) == [7, 7, 7] && body.last == 9)
    }

    @Test func streamsThatCannotDrainAreEndedOnceTheServerWideBudgetIsPassed() throws {
        let streams = Shared<[ResponseStream]>([])
        let budget = 1 << 20
        try withServer(
            { $0.streamBufferBudget = budget },
            handler: { _, responder in
                // A per-stream limit the test never reaches: only the server-wide budget can end these streams.
                let stream = ResponseStream(maxBufferedBytes: 64 << 20)
                streams.update { $0.append(stream) }
                responder.respond(
                    HTTPResponse(status: 200, headers: ["Content-Type": "text/event-stream"], body: .stream(stream)))
            }
        ) { server in
            // Two clients that never read. The kernel takes a few MiB into each socket's buffers (4 MiB of send
            // buffer at most here); the rest stays in the streams.
            let readers = try (0..<2).map { _ in
                try LoopbackSocket(from: "127.0.0.1", to: server.port, receiveBuffer: 4096)
            }
            for reader in readers { reader.send("GET /events HTTP/1.1\r\nHost: test\r\n\r\n") }
            #expect(eventually { streams.value.count == 2 })
            let event = [UInt8](repeating: UInt8(ascii: "x"), count: 1 << 20)
            var ended = [false, false]
            var mostBuffered = 0
            // 16 MiB each at most.
            for _ in 0..<16 where ended.contains(false) {
                for (index, stream) in streams.value.enumerated() where !ended[index] {
                    ended[index] = !stream.write(event)
                    mostBuffered = max(mostBuffered, server.statistics.streamBufferedBytes)
                }
                usleep(20_000)
            }
            #expect(ended == [true, true])
            #expect(server.statistics.streamsEndedOverBudget == 2)
            // Past the budget by at most one event per stream (one that held nothing unsent takes its next event).
            #expect(mostBuffered <= budget + 2 * event.count)
            // Their unsent bytes are dropped at once; the sockets close when libmicrohttpd next writes or times out.
            #expect(server.statistics.streamBufferedBytes == 0)
        }
    }

    @Test func aNewStreamIsAnswered503WhileTheStreamsHoldMoreThanTheBudget() throws {
        let streams = Shared<[ResponseStream]>([])
        try withServer(
            { $0.streamBufferBudget = 64 << 10 },
            handler: { _, responder in
                let stream = ResponseStream(maxBufferedBytes: 64 << 20)
                streams.update { $0.append(stream) }
                responder.respond(
                    HTTPResponse(status: 200, headers: ["Content-Type": "text/event-stream"], body: .stream(stream)))
            }
        ) { server in
            let stuck = try LoopbackSocket(from: "127.0.0.1", to: server.port, receiveBuffer: 4096)
            stuck.send("GET /events HTTP/1.1\r\nHost: test\r\n\r\n")
            #expect(eventually { streams.value.count == 1 })
            let first = try #require(streams.value.first)
            // One event far larger than the budget: taken (the stream held nothing); the kernel buffers a few MiB of
            // it at most (4 MiB of send buffer here), the rest stays in the stream.
            #expect(first.write([UInt8](repeating: UInt8(ascii: "x"), count: 16 << 20)))
            #expect(server.hasStreamBudget == false)
            let refused = try LoopbackSocket(from: "127.0.0.1", to: server.port)
            refused.send("GET /events HTTP/1.1\r\nHost: test\r\n\r\n")
            let answer = refused.readAnswer(timeout: .seconds(2))
            #expect(answer?.status == 503)
            #expect(answer?.head.lowercased().contains("retry-after: 5") == true)
            #expect(answer?.body.contains(#""status":503"#) == true)
            #expect(server.statistics.streamsRefusedOverBudget == 1)
            #expect(eventually { streams.value.count == 2 && streams.value[1].isTerminated })
            // The stuck stream cannot take its next event: it is ended, and the budget is free again.
            #expect(!first.write(Array("data: more\n\n".utf8)))
            #expect(eventually { server.hasStreamBudget })
            let next = try LoopbackSocket(from: "127.0.0.1", to: server.port)
            next.send("GET /events HTTP/1.1\r\nHost: test\r\n\r\n")
            #expect(next.isReadable(within: .seconds(2)))
            #expect(next.readUntilClosed(timeout: .milliseconds(200)).text.hasPrefix("HTTP/1.1 200"))
        }
    }

    /// Raises this process's soft limit of open descriptors to its hard limit, which must allow `needed`: the
    /// other suites running meanwhile in this process keep room beside the test's sockets.
    private func raiseDescriptorLimit(to needed: Int) throws {
        var limit = rlimit()
        guard getrlimit(openFilesResource, &limit) == 0 else { throw TestFailure("getrlimit failed") }
        guard limit.rlim_max >= rlim_t(needed) else {
            throw TestFailure("the hard limit of open files (\(limit.rlim_max)) is below \(needed)")
        }
        guard limit.rlim_cur < limit.rlim_max else { return }
        limit.rlim_cur = limit.rlim_max
        guard setrlimit(openFilesResource, &limit) == 0 else { throw TestFailure("setrlimit failed") }
    }
}

/// `RLIMIT_NOFILE` as `getrlimit` takes it (an enum on glibc).
private let openFilesResource = __rlimit_resource_t(RLIMIT_NOFILE.rawValue)
