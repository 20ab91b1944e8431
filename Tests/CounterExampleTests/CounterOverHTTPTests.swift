import Foundation
import Glibc
import HTTPTestClient
import Testing

/// The README's counter app as a user runs it: the built binary, driven over real HTTP, stopped by a signal.
@Suite struct CounterOverHTTPTests {
    @Test(arguments: [SIGTERM, SIGINT])
    func theExampleServesTheCounterAndStopsOnASignal(signal: Int32) async throws {
        try await onOwnThread {
            let example = try CounterProcess()
            let http = try TestHTTPClient(port: example.port)
            defer { http.close() }
            let created = try http.request("POST", "/v1/sessions")
            #expect(created.status == 201)
            let session = try Self.object(created)
            let id = try #require(session["id"] as? String)
            let auth = [("Authorization", "Bearer \(try #require(session["token"] as? String))")]
            #expect((session["views"] as? [String: Any])?["counter"] as? [String: Int] == ["count": 0])

            let json = auth + [("Content-Type", "application/json")]
            let batch = #"[{"type":"counter/increase"},{"type":"counter/set","payload":{"count":-5}}]"#
            let dispatched = try http.request(
                "POST", "/v1/sessions/\(id)/actions?views=counter", headers: json, body: Array(batch.utf8))
            #expect(dispatched.status == 200)
            let results = try Self.object(dispatched)["results"] as? [Any]
            #expect(results?.first as? String == "applied")
            #expect((results?.last as? [String: String])?["blocked"] == "the count cannot go below zero")

            let read = try http.request("GET", "/v1/sessions/\(id)?views=counter", headers: auth)
            #expect(read.status == 200)
            #expect((try Self.object(read)["views"] as? [String: Any])?["counter"] as? [String: Int] == ["count": 1])

            let (reason, status) = try example.stop(with: signal)
            #expect(reason == .exit && status == 0, "a graceful shutdown exits normally:\n\(example.log)")
            #expect(example.log.contains("stopping"))
        }
    }

    @Test func aBusyPortEndsTheExampleWithOneLineAndAFailureStatus() async throws {
        try await onOwnThread {
            let first = try CounterProcess()
            let (status, output) = try CounterProcess.run(["\(first.port)"])
            #expect(status == 1)
            let lines = output.split(separator: "\n").filter { $0.hasPrefix("counter-example:") }
            #expect(lines.count == 1, "\(output)")
            #expect(lines.first == "counter-example: cannot listen on 127.0.0.1:\(first.port): Address already in use")
            #expect(!output.contains("Fatal error"), "\(output)")
            _ = try first.stop()
        }
    }

    static func object(_ response: TestResponse) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any])
    }
}
