import ExampleApp
import Foundation
import HTTPTestClient
import PostgresTestSupport
import ReMVVMPostgres
import Testing

@testable import ReMVVMServer

/// Two builds of the example app on one database, as in a rolling deploy: a version 2 node writes what the live
/// version 1 nodes read, and its own versions once the last is gone; told to write its own at once, a node of
/// version 1 asked for a session it wrote answers 503 with Retry-After (problem+json) and keeps it.
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
        // Told to write its own versions although a version 1 node lives (the operator's override).
        let newer = try Node.start("v2-a", on: database, version: .v2, writesNewestFormat: true)
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
        let replacement = try Node.start("v2-b", on: database, version: .v2, writesNewestFormat: true)
        let again = try await read(session, on: replacement)
        #expect(again.status == 200, "\(again.text)")
        #expect(again.counter == 5)
        try await older.stop()
        try await replacement.stop()
    }

    /// The log rows of `session`: each entry's actions and action versions.
    func logRows(_ session: ClusterSession) throws -> [(actions: String, versions: String?)] {
        let rows = try database.connect().execute(
            "SELECT actions, versions FROM log WHERE session = $1::text ORDER BY version", [.text(session.id)])
        var result: [(actions: String, versions: String?)] = []
        for row in 0..<rows.count {
            let actions = String(decoding: try rows.bytes(row, 0), as: UTF8.self)
            result.append((actions, rows.optionalBytes(row, 1).map { String(decoding: $0, as: UTF8.self) }))
        }
        return result
    }

    /// Sets the counter on `node` with version 2's payload; the answer's status.
    func setCount(_ count: Int, _ session: ClusterSession, on node: Node) async throws -> Int {
        try await onOwnThread {
            let set = Array(#"{"type":"counter/set","payload":{"count":\#(count)}}"#.utf8)
            return try node.client().http.request(
                "POST", "\(session.path)/actions?views=counter",
                headers: [session.authorization, ("Content-Type", "application/json")], body: set
            ).status
        }
    }

    @Test func aNewerNodeWritesWhatLiveOlderNodesReadAndItsOwnOnceTheLastIsGone() async throws {
        let older = try Node.start("v1", on: database, version: .v1)
        let newer = try Node.start("v2", on: database, version: .v2)
        let tidy = try #require(newer.server.tidy)
        let session = try await onOwnThread { try newer.client().createSession() }
        #expect(try await setCount(5, session, on: newer) == 200)
        // Version 1's shape, which the version 1 node reads: it serves the session.
        let first = try #require(try logRows(session).last)
        #expect(first.actions == #"[{"payload":{"value":5},"type":"counter/set"}]"#)
        #expect(first.versions == nil)
        let answer = try await read(session, on: older)
        #expect(answer.status == 200, "\(answer.text)")
        #expect(answer.counter == 5)

        // The last version 1 node stops: the newer node writes its own shape from its next heartbeat (a tidy round).
        try await older.stop()
        #expect(try await setCount(6, session, on: newer) == 200)
        #expect(try logRows(session).last?.versions == nil)
        _ = try await onOwnThread { tidy.tidy() }
        #expect(try await setCount(7, session, on: newer) == 200)
        let latest = try #require(try logRows(session).last)
        #expect(latest.versions?.replacingOccurrences(of: "\\/", with: "/") == #"{"counter/set":2}"#)
        #expect(latest.actions.contains(#""payload":{"count":7}"#), "\(latest.actions)")
        #expect(try await read(session, on: newer).counter == 7)

        // A version 1 node that starts again is live again: the newer node writes version 1's shape once more.
        let back = try Node.start("v1-again", on: database, version: .v1)
        _ = try await onOwnThread { tidy.tidy() }
        #expect(try await setCount(8, session, on: newer) == 200)
        #expect(try logRows(session).last?.versions == nil)
        // Stopped while that node lives, the newer node snapshots the state in version 1's shape: it serves it.
        try await newer.stop()
        let snapshot = try database.connect().execute(
            "SELECT state_version, state FROM snapshots WHERE session = $1::text", [.text(session.id)])
        #expect(try snapshot.int32(0, 0) == 1)
        #expect(!String(decoding: try snapshot.bytes(0, 1), as: UTF8.self).contains("counterLabel"))
        let served = try await read(session, on: back)
        #expect(served.status == 200, "\(served.text)")
        #expect(served.counter == 8)
        try await back.stop()
    }

    @Test func aNodeOfABuildBeforeTheAnnouncementsCountsAsReadingVersion1WhileItHoldsSessions() async throws {
        let older = try Node.start("old", on: database, version: .v1)
        _ = try await onOwnThread { try older.client().createSession() }
        // What a build from before node_versions leaves: sessions it owns, and no announcement.
        try database.connect().execute("DELETE FROM node_versions WHERE node = 'old'")
        let newer = try Node.start("v2", on: database, version: .v2)
        let tidy = try #require(newer.server.tidy)
        let session = try await onOwnThread { try newer.client().createSession() }
        #expect(try await setCount(5, session, on: newer) == 200)
        #expect(try logRows(session).last?.versions == nil)
        // Stopped, it releases its sessions: no owner is left that did not announce itself.
        try await older.stop()
        _ = try await onOwnThread { tidy.tidy() }
        #expect(try await setCount(6, session, on: newer) == 200)
        #expect(try logRows(session).last?.versions != nil)
        try await newer.stop()
    }
}
