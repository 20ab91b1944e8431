import Foundation
import HTTPTestClient
import PostgresTestSupport
import ReMVVMPersistence
import Testing

@testable import ReMVVMPostgres
@testable import ReMVVMServer

/// Stored sessions expire across nodes: servers on one PostgreSQL database, over real HTTP on loopback.
@Suite(.enabled(if: TestDatabase.baseURL != nil, Comment(rawValue: TestDatabase.whyDisabled)), .serialized)
final class ClusterExpiryTests {
    let database: TestDatabase

    init() throws {
        database = try TestDatabase()
    }

    static let gone: [String: Int64] = ["sessions": 0, "snapshots": 0, "log": 0, "idempotency": 0]

    /// Rows stored for the session in each table.
    func rows(of session: ClusterSession) throws -> [String: Int64] {
        let connection = try database.connect()
        var counts: [String: Int64] = [:]
        for (table, column) in [
            ("sessions", "id"), ("snapshots", "session"), ("log", "session"), ("idempotency", "session"),
        ] {
            counts[table] = try connection.execute(
                "SELECT count(*) FROM \(table) WHERE \(column) = $1::text", [.text(session.id)]
            ).int64(0, 0)
        }
        return counts
    }

    /// The session's stored expiry.
    func expiry(of session: ClusterSession) throws -> Date {
        let rows = try database.connect().execute(
            "SELECT expires_at FROM sessions WHERE id = $1::text", [.text(session.id)])
        return Date(timeIntervalSince1970: try rows.double(0, 0))
    }

    /// Waits (at most `timeout`) until `condition` holds; whether it did.
    func eventually(within timeout: Duration = .seconds(10), _ condition: () throws -> Bool) async throws -> Bool {
        let deadline = ContinuousClock.now + timeout
        while try !condition() {
            guard ContinuousClock.now < deadline else { return false }
            try await Task.sleep(for: .milliseconds(10))
        }
        return true
    }

    @Test func aSessionIdlePastItsTTLIsDeletedByAnotherNodesTidyAndUnknownEverywhere() async throws {
        let nodeA = try Node.start("node-a", on: database)
        let session = try await onOwnThread {
            let client = try nodeA.client()
            let session = try client.createSession()
            #expect(try client.dispatch(session, key: "first").status == 200)
            #expect(try client.dispatch(session).status == 200)
            return session
        }
        // A deploy: node A stops (its sessions snapshotted and released) and nobody comes back for this one. Its
        // first snapshot keeps the log before it (for `verify-upgrade`).
        try await nodeA.stop()
        #expect(try rows(of: session) == ["sessions": 1, "snapshots": 1, "log": 2, "idempotency": 1])
        let expires = try expiry(of: session)
        #expect(expires > Date().addingTimeInterval(29 * 60))

        let nodeB = try Node.start("node-b", on: database)
        let tidy = try #require(nodeB.server.tidy)
        // Not before its expiry; once past it, it is gone with everything stored for it.
        #expect(tidy.tidy(before: expires.addingTimeInterval(-1)).sessions == 0)
        #expect(try rows(of: session)["sessions"] == 1)
        #expect(tidy.tidy(before: expires.addingTimeInterval(1)) == SessionTidy.Round(sessions: 1, batches: 1))
        #expect(try rows(of: session) == Self.gone)
        // Its token is as unknown as a wrong one, on this node and on a new one (a restart).
        let nodeC = try Node.start("node-c", on: database)
        for node in [nodeB, nodeC] {
            let read = try await onOwnThread { try node.client().read(session) }
            #expect(read.status == 404)
            #expect(read.problemType?.hasSuffix("session-not-found") == true, "\(read.text)")
        }
        try await nodeB.stop()
        try await nodeC.stop()
    }

    @Test func anExpiredSessionNotTidiedYetAnswers404AndIsDeletedWhenAsked() async throws {
        let nodeA = try Node.start("node-a", on: database)
        let session = try await nodeA.session(dispatching: 1)
        try await nodeA.stop()
        try database.connect().execute(
            "UPDATE sessions SET expires_at = extract(epoch FROM now()) - 1 WHERE id = $1::text", [.text(session.id)])
        let nodeB = try Node.start("node-b", on: database)
        let read = try await onOwnThread { try nodeB.client().read(session) }
        #expect(read.status == 404)
        #expect(nodeB.server.sessionCount == 0)
        #expect(try await eventually { try rows(of: session) == Self.gone })
        try await nodeB.stop()
    }

    @Test func aSessionInUseIsNeverDeletedByATidy() async throws {
        // A TTL of 4 s: the stored expiry runs 2 s ahead, and is moved once a use finds it less than 4 s away.
        let nodeA = try Node.start("node-a", on: database, sessionTTL: .seconds(4))
        let nodeB = try Node.start("node-b", on: database)
        let session = try await nodeA.session(dispatching: 0)
        let created = try expiry(of: session)
        #expect(created < Date().addingTimeInterval(6.5))
        try await Task.sleep(for: .milliseconds(2_500))
        let used = Date()
        #expect(try await onOwnThread { try nodeA.client().dispatch(session).status } == 200)
        // The dispatch's answer waited for its commit, which went after the touch.
        let moved = try expiry(of: session)
        #expect(moved >= used.addingTimeInterval(5.9))
        // Another node's tidy, at a time the stored copy would have expired without the use, leaves it alone.
        #expect(nodeB.server.tidy?.tidy(before: created.addingTimeInterval(1)).sessions == 0)
        let read = try await onOwnThread { try nodeA.client().read(session) }
        #expect(read.status == 200)
        #expect(read.counter == 1)
        try await nodeA.stop()
        try await nodeB.stop()
    }

    @Test func aSessionThatExpiresInANodesMemoryIsDeletedFromStorage() async throws {
        let nodeA = try Node.start("node-a", on: database, sessionTTL: .seconds(1))
        let session = try await nodeA.session(dispatching: 1)
        #expect(try await eventually { nodeA.server.sessionCount == 0 })
        #expect(try await eventually { try rows(of: session) == Self.gone })
        let nodeB = try Node.start("node-b", on: database)
        #expect(try await onOwnThread { try nodeB.client().read(session).status } == 404)
        try await nodeA.stop()
        try await nodeB.stop()
    }

    @Test func theTidyRunsAsAServiceBesideTheServerUntilItStops() async throws {
        let nodeA = try Node.start("node-a", on: database)
        let sessions = try await onOwnThread {
            let client = try nodeA.client()
            return try (0..<3).map { _ in try client.createSession() }
        }
        try await nodeA.stop()
        // Two of them expired while no node held them.
        try database.connect().execute(
            "UPDATE sessions SET expires_at = extract(epoch FROM now()) - 1 WHERE id = ANY ($1::text::text[])",
            [.text("{\(sessions[0].id),\(sessions[1].id)}")])
        let nodeB = try Node.start("node-b", on: database, tidyInterval: .milliseconds(200))
        let serving = Task { try await nodeB.server.run() }
        #expect(try await eventually { try rows(of: sessions[0]) == Self.gone && rows(of: sessions[1]) == Self.gone })
        #expect(try rows(of: sessions[2])["sessions"] == 1)
        serving.cancel()
        try await serving.value
        #expect(!nodeB.server.isServing)
    }
}
