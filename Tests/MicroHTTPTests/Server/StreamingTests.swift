import HTTPTestClient
import MicroHTTP
import Testing

@Suite("Streamed responses")
struct StreamingTests {
    private static func streamingServer(
        _ configure: (inout HTTPServerConfiguration) -> Void = { _ in },
        _ body: (HTTPServer, Shared<ResponseStream?>) throws -> Void
    ) throws {
        let current = Shared<ResponseStream?>(nil)
        try withServer(
            configure,
            handler: { _, responder in
                let stream = ResponseStream()
                stream.write(Array("event: hello\n\n".utf8))  // Written before sending: goes out first.
                current.update { $0 = stream }
                responder.respond(
                    HTTPResponse(status: 200, headers: ["Content-Type": "text/event-stream"], body: .stream(stream)))
            }
        ) { server in
            try body(server, current)
        }
    }

    @Test func writesArriveInOrderAndFinishEndsTheBody() throws {
        try Self.streamingServer { server, current in
            let client = try TestHTTPClient(port: server.port)
            try client.sendRequest("GET", "/events")
            let head = try client.readHead()
            #expect(head.status == 200)
            #expect(head.headers.contains { $0.name.lowercased() == "transfer-encoding" && $0.value == "chunked" })
            #expect(try client.readChunk().map { String(decoding: $0, as: UTF8.self) } == "event: hello\n\n")
            let stream = try #require(current.value)
            #expect(eventually { server.suspendedConnections == 1 })  // Idle stream: parked, no thread held.
            var received = ""
            for index in 0..<20 {
                #expect(stream.write(Array("data: \(index)\n\n".utf8)))
            }
            let expected = (0..<20).map { "data: \($0)\n\n" }.joined()
            while received.count < expected.count, let chunk = try client.readChunk() {
                received += String(decoding: chunk, as: UTF8.self)
            }
            #expect(received == expected)
            let ended = Shared(false)
            stream.onTermination { ended.update { $0 = true } }
            stream.finish()
            #expect(try client.readChunk() == nil)
            #expect(eventually { ended.value && stream.isTerminated })
            #expect(!stream.write([1]))
            // The connection survives the stream and serves the next request.
            try client.sendRequest("GET", "/events")
            #expect(try client.readHead().status == 200)
            #expect(try client.readChunk() == Array("event: hello\n\n".utf8))
        }
    }

    @Test func writesFromManyThreadsAreAllDelivered() throws {
        try Self.streamingServer { server, current in
            let client = try TestHTTPClient(port: server.port)
            try client.sendRequest("GET", "/events")
            _ = try client.readHead()
            _ = try client.readChunk()
            let stream = try #require(current.value)
            let done = Shared(0)
            for thread in 0..<4 {
                runLater {
                    for _ in 0..<250 { stream.write([UInt8(ascii: "a") + UInt8(thread)]) }
                    done.update { $0 += 1 }
                }
            }
            #expect(eventually { done.value == 4 })
            stream.finish()
            var bytes: [UInt8] = []
            while let chunk = try client.readChunk() {
                bytes += chunk
            }
            #expect(bytes.count == 1000)
            for thread in 0..<4 {
                #expect(bytes.filter { $0 == UInt8(ascii: "a") + UInt8(thread) }.count == 250)
            }
        }
    }

    @Test func clientLeavingAnIdleStreamTerminatesIt() throws {
        try Self.streamingServer { server, current in
            let client = try TestHTTPClient(port: server.port)
            try client.sendRequest("GET", "/events")
            _ = try client.readHead()
            _ = try client.readChunk()
            let stream = try #require(current.value)
            let ended = Shared(false)
            stream.onTermination { ended.update { $0 = true } }
            #expect(eventually { server.suspendedConnections == 1 })
            client.close()
            #expect(eventually(timeout: .seconds(2)) { ended.value })
            #expect(!stream.write(Array("data: x\n\n".utf8)))
            #expect(eventually { server.suspendedConnections == 0 })
        }
    }

    @Test func aStreamNeverSentEndsWithItsRequest() {
        let stream = ResponseStream()
        let ended = Shared(false)
        stream.onTermination { ended.update { $0 = true } }
        let responder = Responder { _ in }
        responder.respond(HTTPResponse(status: 200, body: .stream(stream)))
        #expect(ended.value)
        #expect(stream.isTerminated)
    }
}
