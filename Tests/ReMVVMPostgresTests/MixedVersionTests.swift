import ExampleApp
import Foundation
import HTTPTestClient
import PostgresTestSupport
import Testing

/// Two builds of the example app on one database, as in a rolling deploy: a node of version 1 asked for a session
/// that version 2 wrote answers 503 with Retry-After (problem+json) and keeps it, and a version 2 node serves it.
@Suite(.enabled(if: TestDatabase.baseURL != nil, Comment(rawValue: TestDatabase.whyDisabled)))
final class MixedVersionTests {
    let database: TestDatabase

    init() throws {
        database = try TestDatabase()
    }

    /// `GET` of the session's counter view on `node`.
    func read(_ session: ClusterSession, on node: Node) async throws -> TestResponse {
        try await onOwnThread { try node.client().read(session) }
    }

    @Test func anOldNodeAnswers503ForASessionANewerBuildWroteAndNeverDropsIt() async throws {
        let newer = try Node.start("v2-a", on: database, version: .v2)
        // Told to drop sessions it cannot decode: one a newer build wrote is not one of them.
        let older = try Node.start("v1", on: database, version: .v1, dropsUndecodable: true)
        let session = try await onOwnThread {
            let client = try newer.client()
            let session = try client.createSession()
            let set = Array(#"{"type":"counter/set","payload":{"count":5}}"#.utf8)
            let answer = try client.http.request(
                "POST", "\(session.path)/actions?views=counter",
                headers: [session.authorization, ("Content-Type", "application/json")], body: set)
            #expect(answer.status == 200, "\(answer.text)")
            return session
        }

        // The log entry of `counter/set` is at version 2 of the action, which version 1 cannot read.
        let refused = try await read(session, on: older)
        #expect(refused.status == 503)
        #expect(refused.header("Retry-After") == "1")
        #expect(refused.header("Content-Type")?.hasPrefix("application/problem+json") == true)
        let problem = try refused.json()
        #expect((problem["type"] as? String)?.hasSuffix("/problems/newer-build") == true, "\(problem)")
        #expect((problem["detail"] as? String)?.contains("newer build") == true)

        let served = try await read(session, on: newer)
        #expect(served.status == 200, "\(served.text)")
        #expect(served.counter == 5)

        // Stopped cleanly, the newer node snapshots the session at state version 2: still not the older node's.
        try await newer.stop()
        #expect(try await read(session, on: older).status == 503)
        let replacement = try Node.start("v2-b", on: database, version: .v2)
        let again = try await read(session, on: replacement)
        #expect(again.status == 200, "\(again.text)")
        #expect(again.counter == 5)
        try await older.stop()
        try await replacement.stop()
    }
}
