import HTTPTestClient
import Synchronization
import Testing

@testable import MicroHTTP

/// A response marked `shared()` is built into libmicrohttpd's form once and sent on every connection that
/// answers with it, byte for byte like an ordinary response; a changed copy is an ordinary response again.
@Suite("Shared responses over real sockets")
struct SharedResponseTests {
    private static let shared = HTTPResponse(
        status: 201, headers: ["Content-Type": "application/json", "X-Shared": "yes"],
        body: .bytes(Array(#"{"shared":true}"#.utf8))
    ).shared()

    @Test func onlyInMemoryBodiesAreSharedAndAnyChangeUnsharesACopy() throws {
        let prepared = try #require(Self.shared.prepared)
        var copy = Self.shared
        #expect(copy.prepared === prepared)
        copy.status = 200
        #expect(copy.prepared == nil)
        copy = Self.shared
        copy.headers.add(name: "X-More", value: "1")
        #expect(copy.prepared == nil)
        copy = Self.shared
        copy.body = .bytes([])
        #expect(copy.prepared == nil)
        let file = HTTPResponse(status: 200, body: .file(path: "/dev/null", size: 0)).shared()
        #expect(file.prepared == nil)
    }

    @Test func everyConnectionGetsTheSameStatusHeadersAndBody() throws {
        let response = HTTPResponse(
            status: 201, headers: ["X-Shared": "yes"], body: .bytes(Array("once".utf8))
        ).shared()
        let prepared = try #require(response.prepared)
        #expect(!prepared.isMade)
        try withServer(handler: { _, responder in responder.respond(response) }) { server in
            for _ in 0..<3 {
                let response = try TestHTTPClient(port: server.port).request("GET", "/")
                #expect(response.status == 201)
                #expect(response.header("X-Shared") == "yes")
                #expect(response.text == "once")
            }
        }
        // One libmicrohttpd response, made by the first send and queued for the others.
        #expect(prepared.isMade)
        try withServer(handler: { _, responder in responder.respond(Self.shared) }) { server in
            for _ in 0..<3 {
                let clients = try (0..<4).map { _ in try TestHTTPClient(port: server.port) }
                for client in clients {
                    let response = try client.request("GET", "/")
                    #expect(response.status == 201)
                    #expect(response.header("X-Shared") == "yes")
                    #expect(response.header("Content-Type") == "application/json")
                    #expect(response.text == #"{"shared":true}"#)
                }
            }
        }
    }

    @Test func sharedAnswersFromOtherThreadsResumeParkedRequests() throws {
        let parked = Mutex<[Responder]>([])
        try withServer(handler: { _, responder in parked.withLock { $0.append(responder) } }) { server in
            let connections = try (0..<8).map { _ in try TestHTTPClient(port: server.port) }
            for connection in connections { try connection.sendRequest("GET", "/wait", headers: [], body: []) }
            #expect(eventually { parked.withLock { $0.count } == connections.count })
            for responder in parked.withLock({ $0 }) { runLater { responder.respond(Self.shared) } }
            for connection in connections {
                let response = try connection.readResponse()
                #expect(response.status == 201)
                #expect(response.text == #"{"shared":true}"#)
            }
        }
    }

    @Test func aChangedCopyIsSentAsChanged() throws {
        var changed = Self.shared
        changed.status = 202
        changed.headers["X-Shared"] = "no"
        changed.body = .bytes(Array("other".utf8))
        let response = changed
        try withServer(handler: { request, responder in
            responder.respond(request.path == "/changed" ? response : Self.shared)
        }) { server in
            let client = try TestHTTPClient(port: server.port)
            #expect(try client.request("GET", "/").status == 201)
            let other = try client.request("GET", "/changed")
            #expect(other.status == 202)
            #expect(other.header("X-Shared") == "no")
            #expect(other.text == "other")
            #expect(try client.request("GET", "/").text == #"{"shared":true}"#)
        }
    }
}
