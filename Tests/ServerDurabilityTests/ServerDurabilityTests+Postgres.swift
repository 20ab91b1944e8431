import Foundation
import HTTPTestClient
import PostgresTestSupport
import Testing

@testable import ReMVVMPostgres

extension ServerDurabilityTests {
    /// The crash test against PostgreSQL (`--database-url`): under load, `kill -9`, restart on the
    /// same database: every acknowledged dispatch is there, versions have no gap, an idempotent
    /// retry gets its first answer, and the database holds token hashes only.
    @Test(.enabled(if: TestDatabase.baseURL != nil, Comment(rawValue: TestDatabase.whyDisabled)))
    func aCrashLosesNoAcknowledgedDispatchInPostgreSQL() async throws {
        let database = try TestDatabase()
        let arguments = ["--database-url", database.url, "--node-name", "node-1", "--snapshot-every", "50"]
        let server = try await ServerProcess.start(dataDirectory: dataDirectory, arguments: arguments)
        let port = server.port
        let key = ("Idempotency-Key", "pg-retry")
        let (sessions, first) = try await onOwnThread {
            let client = try SessionClient(port: port)
            let sessions = try (0..<8).map { _ in try client.createSession() }
            let first = try client.dispatch(sessions[0], Self.increase, headers: [key])
            #expect(first.status == 200)
            return (sessions, first)
        }
        let stop = Flag()
        let acknowledged = Count()
        let workers = 4
        async let results = withThrowingTaskGroup(of: Acknowledged.self) { group in
            for worker in 0..<workers {
                group.addTask {
                    try await onOwnThread {
                        Self.dispatch(
                            worker: worker, of: workers, to: sessions, port: port, stop: stop, count: acknowledged)
                    }
                }
            }
            return try await group.reduce(into: [Acknowledged]()) { $0.append($1) }
        }
        let deadline = ContinuousClock.now + .seconds(15)
        while acknowledged.current < 200, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(5)) }
        try await onOwnThread { server.crash() }
        stop.set()
        let seen = try await results
        #expect(acknowledged.current >= 200, "only \(acknowledged.current) dispatches were acknowledged in 15 s")

        let restarted = try await ServerProcess.start(dataDirectory: dataDirectory, arguments: arguments)
        // Sessions in PostgreSQL are loaded when first asked for, not at start.
        #expect(!restarted.log.contains("sessions.restored="))
        try await onOwnThread {
            let client = try SessionClient(port: restarted.port)
            for (index, session) in sessions.enumerated() {
                let acked = seen.reduce(0) { $0 + ($1.acknowledged[index] ?? 0) } + (index == 0 ? 1 : 0)
                let attempted = seen.reduce(0) { $0 + ($1.attempted[index] ?? 0) } + (index == 0 ? 1 : 0)
                let body = try json(try client.read(session, views: "counter"))
                let value = try #require(counter(body))
                #expect(value >= acked, "session \(index): \(acked) acknowledged, counter \(value)")
                #expect(value <= attempted)
                #expect(body["version"] as? String == "\(session.epoch).\(value)")
                let next = try json(try client.dispatch(session, Self.increase))
                #expect(next["version"] as? String == "\(session.epoch).\(value + 1)")
            }
            let retry = try client.dispatch(sessions[0], Self.increase, headers: [key])
            #expect(retry.status == 200)
            #expect(retry.body == first.body)
        }
        try await restarted.stop()

        let connection = try database.connect()
        let rows = try connection.execute("SELECT token_hash, owner, fence FROM sessions ORDER BY id")
        #expect(rows.count == sessions.count)
        let stored = try (0..<rows.count).map { try rows.text($0, 0) }
        #expect(sessions.allSatisfy { !stored.contains($0.token) })
        // The clean stop released every session (no owner), each taken over once after the crash.
        #expect((0..<rows.count).allSatisfy { rows.optionalBytes($0, 1) == nil })
        #expect(try (0..<rows.count).allSatisfy { try rows.int64($0, 2) == 2 })
    }

    /// PostgreSQL refusing connections: dispatches and new sessions get 503 with `Retry-After`, never
    /// a success that was not stored; when it accepts them again, everything works without a restart.
    @Test(.enabled(if: TestDatabase.baseURL != nil, Comment(rawValue: TestDatabase.whyDisabled)))
    func whileThePostgreSQLIsUnreachableDispatchesAre503AndRecoverAfter() async throws {
        let database = try TestDatabase()
        let arguments = ["--database-url", database.url]
        let server = try await ServerProcess.start(dataDirectory: dataDirectory, arguments: arguments)
        let port = server.port
        try await onOwnThread {
            let admin = try database.adminConnection()
            let client = try SessionClient(port: port)
            let session = try client.createSession()
            #expect(try client.dispatch(session, Self.increase).status == 200)

            try admin.execute("ALTER DATABASE \(database.name) ALLOW_CONNECTIONS false")
            try admin.execute(
                "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1::text",
                [.text(database.name)])
            let key = ("Idempotency-Key", "while down")
            for attempt in 0..<3 {
                let refused = try client.dispatch(session, Self.increase, headers: attempt == 0 ? [key] : [])
                #expect(refused.status == 503, "\(refused.text)")
                #expect(refused.header("Retry-After") != nil)
            }
            // A retry of the keyed dispatch is refused too: its first answer is not stored yet.
            #expect(try client.dispatch(session, Self.increase, headers: [key]).status == 503)
            #expect(try client.http.request("POST", "/v1/sessions").status == 503)

            try admin.execute("ALTER DATABASE \(database.name) ALLOW_CONNECTIONS true")
            let deadline = ContinuousClock.now + .seconds(10)
            var status = 0
            while status != 200, ContinuousClock.now < deadline {
                status = try client.dispatch(session, Self.increase).status
                if status != 200 { usleep(100_000) }
            }
            #expect(status == 200)
            #expect(try client.createSession().id.count == 32)
            // The keyed dispatch was applied once, with the version it had: its retry gets that answer now.
            let retry = try client.dispatch(session, Self.increase, headers: [key])
            #expect(retry.status == 200)
            #expect(retry.header("Store-Version") == "\(session.epoch).2")
        }
        try await server.stop()
    }
}
