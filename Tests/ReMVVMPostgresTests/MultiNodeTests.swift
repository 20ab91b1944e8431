import ExampleApp
import Foundation
import HTTPTestClient
import PostgresTestSupport
import ReMVVM
import ReMVVMPersistence
import Synchronization
import Testing

@testable import ReMVVMPostgres
@testable import ReMVVMServer

/// Two servers in one process on one PostgreSQL database, over real HTTP on loopback: sessions move to
/// the node that serves them, the fence keeps the old node from acknowledging anything, and its waiters
/// are let go so that clients reach the new owner.
@Suite(.enabled(if: TestDatabase.baseURL != nil, Comment(rawValue: TestDatabase.whyDisabled)), .serialized)
final class MultiNodeTests {
    let database: TestDatabase

    init() throws {
        database = try TestDatabase()
    }

    /// The session's owner and fence in the database.
    func lease(_ session: ClusterSession) throws -> (owner: String?, fence: Int64) {
        let rows = try database.connect().execute(
            "SELECT owner, fence FROM sessions WHERE id = $1::text", [.text(session.id)])
        return (rows.optionalBytes(0, 0).map { String(decoding: $0, as: UTF8.self) }, try rows.int64(0, 1))
    }

    /// Waits (at most `timeout`) until `condition` holds; whether it did.
    func eventually(within timeout: Duration = .seconds(10), _ condition: () -> Bool) async throws -> Bool {
        let deadline = ContinuousClock.now + timeout
        while !condition() {
            guard ContinuousClock.now < deadline else { return false }
            try await Task.sleep(for: .milliseconds(5))
        }
        return true
    }

    @Test func aSessionIsTakenOverByTheNodeThatFirstServesIt() async throws {
        let nodeA = try Node.start("node-a", on: database)
        let nodeB = try Node.start("node-b", on: database)
        try await database.waitForListeners(2)
        let session = try await nodeA.session(dispatching: 2)
        #expect(nodeB.server.sessionCount == 0)
        #expect(try lease(session).owner == "node-a")

        let read = try await onOwnThread { try nodeB.client().read(session) }
        #expect(read.status == 200)
        #expect(read.header("Store-Version") == session.cursor(2))
        #expect(read.counter == 2)
        #expect(nodeB.server.sessionCount == 1)
        #expect(try lease(session) == ("node-b", 2))
        // Node A heard of it and dropped its copy.
        #expect(try await eventually { nodeA.server.sessionCount == 0 })
        try await nodeA.stop()
        try await nodeB.stop()
    }

    @Test func concurrentFirstRequestsShareOneLoad() async throws {
        let nodeA = try Node.start("node-a", on: database)
        let nodeB = try Node.start("node-b", on: database)
        let session = try await nodeA.session(dispatching: 1)
        // The session's row locked behind node B's back: its load waits until the lock goes.
        let blocker = try database.connect()
        try blocker.execute("BEGIN")
        try blocker.execute("SELECT 1 FROM sessions WHERE id = $1::text FOR UPDATE", [.text(session.id)])
        async let statuses = withThrowingTaskGroup(of: Int.self) { group in
            for _ in 0..<8 { group.addTask { try await onOwnThread { try nodeB.client().read(session).status } } }
            return try await group.reduce(into: [Int]()) { $0.append($1) }
        }
        #expect(try await eventually { nodeB.server.api.loader?.waiting == 8 })
        // The requests park: the transport's threads serve others meanwhile.
        #expect(try await onOwnThread { try nodeB.client().http.request("GET", "/healthz").status } == 200)
        try blocker.execute("COMMIT")
        #expect(try await statuses == Array(repeating: 200, count: 8))
        // One takeover: the fence moved once.
        #expect(try lease(session) == ("node-b", 2))
        try await nodeA.stop()
        try await nodeB.stop()
    }

    @Test func aSessionWithAThousandLogEntriesIsTakenOverWithinTwoSeconds() async throws {
        let id = String(repeating: "ab", count: 16)
        let token = String(repeating: "cd", count: 16)
        let storage = try PostgresSessionStorage(url: database.url, node: "node-a", listensForTakeovers: false)
        let increase = Data(#"[{"type":"counter/increase","payload":{}}]"#.utf8)
        try storage.write([
            .create(SessionRecord(id: id, tokenHash: Hashing.tokenHash(token), epoch: "e1000")),
            .append(session: id, commits: (1...1_000).map { StoredCommit(version: $0, actions: increase) }),
        ])
        storage.close()
        let nodeB = try Node.start("node-b", on: database)
        let session = ClusterSession(id: id, token: token, epoch: "e1000")
        let (read, elapsed) = try await onOwnThread {
            let client = try nodeB.client()
            let start = ContinuousClock.now
            let read = try client.read(session)
            return (read, ContinuousClock.now - start)
        }
        #expect(read.status == 200)
        #expect(read.counter == 1_000)
        #expect(read.header("Store-Version") == session.cursor(1_000))
        #expect(elapsed < .seconds(2), "took \(elapsed)")
        print("takeover of a session with 1,000 log entries after its snapshot: \(elapsed)")
        try await nodeB.stop()
    }

    @Test func aLoadedSessionResumesItsAppsEffects() async throws {
        // Node A's quote never comes in time; node B's comes at once.
        var slow = Services()
        slow.quotes = LocalQuoteService(delay: .seconds(60))
        var quick = Services()
        quick.quotes = LocalQuoteService(delay: .zero)
        let nodeA = try Node.start("node-a", on: database, services: slow)
        let nodeB = try Node.start("node-b", on: database, services: quick)
        let session = try await onOwnThread {
            let client = try nodeA.client()
            let session = try client.createSession()
            let load = try client.http.request(
                "POST", "\(session.path)/actions?views=quote",
                headers: [session.authorization, ("Content-Type", "application/json")],
                body: Array(#"{"type":"quote/load"}"#.utf8))
            #expect(load.status == 200)
            return session
        }
        // Taken over with its quote loading: the app's restore hook loads it again, on node B.
        let quote = try await onOwnThread {
            let client = try nodeB.client()
            let deadline = ContinuousClock.now + .seconds(5)
            var body: [String: Any] = [:]
            repeat {
                let read = try client.http.request(
                    "GET", "\(session.path)?views=quote", headers: [session.authorization])
                body = ((try read.json()["views"] as? [String: Any])?["quote"] as? [String: Any]) ?? [:]
                if body["text"] is String { break }
                usleep(20_000)
            } while ContinuousClock.now < deadline
            return (body["text"] as? String, body["loading"] as? Bool)
        }
        #expect(quote.0 != nil)
        #expect(quote.1 == false)
        try await nodeA.stop()
        try await nodeB.stop()
    }

    @Test func aWrongTokenNeverMovesASession() async throws {
        let nodeA = try Node.start("node-a", on: database)
        let nodeB = try Node.start("node-b", on: database)
        let session = try await onOwnThread { try nodeA.client().createSession() }
        let wrong = String(repeating: "0", count: 32)
        let refused = try await onOwnThread { try nodeB.client().read(session, token: wrong) }
        #expect(refused.status == 404)
        #expect(refused.problemType == "/problems/session-not-found")
        #expect(try lease(session) == ("node-a", 1))
        #expect(nodeB.server.sessionCount == 0)
        #expect(try await onOwnThread { try nodeA.client().dispatch(session).status } == 200)
        try await nodeA.stop()
        try await nodeB.stop()
    }

    @Test func aDispatchOnTheStaleNodeIs503AndItsRetryAppliesOnceOnTheNewOwner() async throws {
        // Node A does not listen: it learns of the takeover only when its write is refused.
        let nodeA = try Node.start("node-a", on: database, listens: false)
        let nodeB = try Node.start("node-b", on: database, listens: false)
        try await onOwnThread {
            let clientA = try nodeA.client()
            let clientB = try nodeB.client()
            let session = try clientA.createSession()
            #expect(try clientA.dispatch(session).status == 200)
            // Node B's first request for the session is a dispatch: loaded, then applied.
            let first = try clientB.dispatch(session)
            #expect(first.status == 200)
            #expect(first.counter == 2)

            let stale = try clientA.dispatch(session, key: "retry-me")
            #expect(stale.status == 503, "\(stale.text)")
            #expect(stale.header("Content-Type") == "application/problem+json")
            #expect(stale.header("Retry-After") != nil)
            #expect(stale.problemType == "/problems/session-moved")
            #expect(nodeA.server.sessionCount == 0)

            let retried = try clientB.dispatch(session, key: "retry-me")
            #expect(retried.status == 200)
            #expect(retried.header("Store-Version") == session.cursor(3))
            #expect(retried.counter == 3)
            let again = try clientB.dispatch(session, key: "retry-me")
            #expect(again.status == 200)
            #expect(again.body == retried.body)
            // Exactly the acknowledged actions: node A's, node B's, then the retried one.
            #expect(try clientB.read(session).counter == 3)
        }
        try await nodeA.stop()
        try await nodeB.stop()
    }

    /// Waits until `count` backends of this test's database wait for a lock.
    func waitForLockWaiters(_ count: Int) async throws -> Bool {
        let connection = try database.connect()
        let name = database.name
        return try await eventually {
            let rows = try? connection.execute(
                "SELECT count(*) FROM pg_stat_activity WHERE datname = $1::text AND wait_event_type = 'Lock'",
                [.text(name)])
            return (try? rows?.int64(0, 0)) ?? 0 >= count
        }
    }

    @Test func aNodePausedBeforeItsWriteNeverAcknowledgesAVersionTwice() async throws {
        let nodeA = try Node.start("node-a", on: database, listens: false)
        let nodeB = try Node.start("node-b", on: database, listens: false)
        let session = try await nodeA.session(dispatching: 1)
        // Version 2's log row held by an open transaction: node A's write of it waits, as if paused.
        let holder = try database.connect()
        try holder.execute("BEGIN")
        try holder.execute(
            "INSERT INTO log (session, version, format, actions) VALUES ($1::text, 2, 1, '[]')", [.text(session.id)])
        async let paused = onOwnThread { try nodeA.client(timeout: .seconds(20)).dispatch(session) }
        #expect(try await waitForLockWaiters(1))

        // Meanwhile node B takes the session over at version 1 and makes its own version 2.
        #expect(try await onOwnThread { try nodeB.client().read(session).counter } == 1)
        async let taken = onOwnThread { try nodeB.client(timeout: .seconds(20)).dispatch(session) }
        #expect(try await waitForLockWaiters(2))
        try holder.execute("ROLLBACK")

        let (stale, fresh) = try await (paused, taken)
        #expect(stale.status == 503, "\(stale.text)")
        #expect(stale.problemType == "/problems/session-moved")
        #expect(fresh.status == 200)
        #expect(fresh.header("Store-Version") == session.cursor(2))
        // Exactly the acknowledged actions: node A's first, node B's second.
        let final = try await onOwnThread { try nodeB.client().read(session) }
        #expect(final.counter == 2)
        #expect(final.header("Store-Version") == session.cursor(2))
        try await nodeA.stop()
        try await nodeB.stop()
    }

    @Test func aTakeoverNoticeLetsTheOldNodesWaitersGoWithinASecond() async throws {
        let nodeA = try Node.start("node-a", on: database)
        let nodeB = try Node.start("node-b", on: database)
        try await database.waitForListeners(2)
        let session = try await nodeA.session(dispatching: 1)
        async let streamed = onOwnThread {
            let client = try nodeA.client(timeout: .seconds(10))
            let opened = try client.http.openEventStream(
                "\(session.path)/events?views=counter&since=\(session.cursor(1))", headers: [session.authorization])
            return (opened.status, try client.http.readEvent())
        }
        async let polled = onOwnThread {
            let response = try nodeA.client(timeout: .seconds(30)).poll(session, since: session.cursor(1))
            return (response, ContinuousClock.now)
        }
        #expect(try await eventually { nodeA.server.api.timer.count == 1 && nodeA.server.api.streams.count == 1 })

        #expect(try await onOwnThread { try nodeB.client().read(session).status } == 200)
        // Node B answered once the takeover committed: the notice went out then.
        let moved = ContinuousClock.now
        let (answer, answeredAt) = try await polled
        #expect(answer.status == 200)
        #expect(answer.header("Store-Version") == session.cursor(1))
        #expect(answeredAt - moved < .seconds(1), "the parked poll was let go \(answeredAt - moved) after the move")
        let (opened, end) = try await streamed
        #expect(opened == 200)
        #expect(end?.event == "end")
        #expect(end?.data.contains("moved") == true)
        #expect(nodeA.server.sessionCount == 0)
        try await nodeA.stop()
        try await nodeB.stop()
    }

    @Test func aCursorFromBeforeTheMoveGetsAChangeNotAReset() async throws {
        let nodeA = try Node.start("node-a", on: database, snapshotEvery: 2)
        let nodeB = try Node.start("node-b", on: database)
        let session = try await nodeA.session(dispatching: 3)
        try await onOwnThread {
            let client = try nodeB.client()
            // From before the snapshot node B loads from, and from the log after it: changes both.
            for since in [0, 1, 2] {
                let answer = try client.poll(session, since: session.cursor(since), wait: "0s")
                #expect(answer.status == 200)
                let body = try answer.json()
                #expect(body["reset"] == nil, "since \(since): \(answer.text)")
                #expect(body["from"] as? String == session.cursor(since))
                #expect(body["to"] as? String == session.cursor(3))
                #expect(answer.counter == 3)
            }
            let current = try client.poll(session, since: session.cursor(3), wait: "0s")
            #expect(current.status == 200)
            #expect(current.header("Store-Version") == session.cursor(3))
            // Another history is still a reset, and says so.
            let foreign = try client.poll(session, since: "otherepoch.1", wait: "0s")
            #expect(try foreign.json()["reason"] as? String == "epoch")
        }
        try await nodeA.stop()
        try await nodeB.stop()
    }

    @Test func drainingRefusesNewSessionsAndReleasesTheHeldOnes() async throws {
        let nodeA = try Node.start("node-a", on: database)
        let nodeB = try Node.start("node-b", on: database)
        let (held, elsewhere) = try await onOwnThread {
            let held = try nodeA.client().createSession()
            #expect(try nodeA.client().dispatch(held).status == 200)
            return (held, try nodeB.client().createSession())
        }
        nodeA.server.api.draining.store(true, ordering: .relaxed)
        try await onOwnThread {
            let client = try nodeA.client()
            let created = try client.http.request("POST", "/v1/sessions")
            #expect(created.status == 503)
            #expect(created.problemType == "/problems/draining")
            #expect(created.header("Retry-After") != nil)
            #expect(try client.read(elsewhere).status == 503)
            // What it holds it still serves until it stops.
            #expect(try client.read(held).status == 200)
        }
        try await nodeA.stop()
        #expect(try lease(held) == (nil, 1))
        #expect(try lease(elsewhere) == ("node-b", 1))
        let read = try await onOwnThread { try nodeB.client().read(held) }
        #expect(read.counter == 1)
        #expect(try lease(held) == ("node-b", 2))
        try await nodeB.stop()
    }

    @Test func whileTheDatabaseIsDownLoadsAre503AndHeldViewsStillRead() async throws {
        let nodeA = try Node.start("node-a", on: database)
        let nodeB = try Node.start("node-b", on: database)
        let session = try await nodeA.session(dispatching: 1)
        try database.refuseConnections(true)
        try await onOwnThread {
            let refused = try nodeB.client().read(session)
            #expect(refused.status == 503)
            #expect(refused.problemType == "/problems/storage-unavailable")
            #expect(refused.header("Retry-After") != nil)
            let clientA = try nodeA.client()
            #expect(try clientA.read(session).counter == 1)
            let dispatched = try clientA.dispatch(session)
            #expect(dispatched.status == 503)
            #expect(dispatched.problemType == "/problems/not-durable")
            #expect(try clientA.http.request("POST", "/v1/sessions").status == 503)
        }
        try database.refuseConnections(false)
        let recovered = try await onOwnThread {
            let client = try nodeB.client()
            let deadline = ContinuousClock.now + .seconds(10)
            var response = try client.read(session)
            while response.status != 200, ContinuousClock.now < deadline {
                usleep(100_000)
                response = try client.read(session)
            }
            return response
        }
        #expect(recovered.status == 200)
        // The dispatch answered 503 was applied in memory and stored by node A's repair, or is lost with
        // node A's copy; it is never answered 200 and never stored twice.
        #expect(recovered.counter == 1 || recovered.counter == 2)
        try await nodeA.stop()
        try await nodeB.stop()
    }
}
