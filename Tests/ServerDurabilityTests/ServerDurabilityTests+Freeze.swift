import Foundation
import Glibc
import HTTPTestClient
import PostgresTestSupport
import Testing

extension ServerDurabilityTests {
    /// One dispatch as a load thread saw it.
    struct Attempt: Sendable {
        let session: Int
        let started: ContinuousClock.Instant
        let took: Duration
        /// 0 when no answer came within the client's timeout.
        let status: Int
        let retryAfter: Bool
    }

    /// Every PostgreSQL process stopped with SIGSTOP under load (the connections stay open and nothing answers, as
    /// with a blackholed network or a paused VM): every dispatch is answered within 5 s, 503 with `Retry-After` when
    /// it could not be stored, and never 200 for anything not durable; reads of stored versions and `/healthz` keep
    /// answering; after SIGCONT, dispatches succeed again within 5 s with no acknowledged action lost.
    @Test(.enabled(if: PrivatePostgres.isAvailable, "PostgreSQL is not installed (scripts/test installs it)"))
    func aFrozenPostgreSQLTurnsDispatchesInto503WithinFiveSecondsAndRecovers() async throws {
        let postgres = try await onOwnThread { try PrivatePostgres() }
        defer { postgres.stop() }
        let server = try await ServerProcess.start(
            dataDirectory: dataDirectory, arguments: ["--database-url", postgres.url, "--node-name", "frozen"])
        let port = server.port
        let (busy, quiet) = try await onOwnThread {
            let client = try SessionClient(port: port)
            let busy = try (0..<4).map { _ in try client.createSession() }
            let quiet = try client.createSession()
            #expect(try client.dispatch(quiet, Self.increase).status == 200)
            return (busy, quiet)
        }
        let stop = Flag()
        let workers = 4
        async let attempts = withThrowingTaskGroup(of: [Attempt].self) { group in
            for worker in 0..<workers {
                group.addTask {
                    try await onOwnThread { Self.load(worker: worker, sessions: busy, port: port, stop: stop) }
                }
            }
            return try await group.reduce(into: [Attempt]()) { $0 += $1 }
        }
        try await Task.sleep(for: .seconds(1))

        let frozen = try postgres.signal(SIGSTOP)
        #expect(frozen >= 3, "the postmaster and its children")
        let frozenAt = ContinuousClock.now
        // While frozen: a stored version and the health check answer at once, again and again.
        try await onOwnThread {
            let client = try SessionClient(port: port, timeout: .seconds(2))
            while ContinuousClock.now < frozenAt + .seconds(6) {
                let read = try client.read(quiet, views: "counter")
                #expect(read.status == 200, "\(read.text)")
                #expect(counter(try json(read)) == 1)
                #expect(try client.http.request("GET", "/healthz").status == 200)
                usleep(250_000)
            }
        }
        try postgres.signal(SIGCONT)
        let thawedAt = ContinuousClock.now
        let recovered = try await onOwnThread {
            let client = try SessionClient(port: port, timeout: .seconds(6))
            while ContinuousClock.now < thawedAt + .seconds(5) {
                if try client.dispatch(quiet, Self.increase).status == 200 { return Optional(ContinuousClock.now) }
                usleep(50_000)
            }
            return nil
        }
        #expect(recovered != nil, "no dispatch succeeded within 5 s of SIGCONT")
        try await Task.sleep(for: .milliseconds(500))
        stop.set()
        let seen = try await attempts

        let duringFreeze = seen.filter { $0.started >= frozenAt && $0.started < thawedAt }
        let slowest = seen.map(\.took).max() ?? .zero
        print(
            "frozen PostgreSQL: \(seen.count) dispatches, \(seen.filter { $0.status == 200 }.count) 200, "
                + "\(seen.filter { $0.status == 503 }.count) 503, slowest answer \(slowest), "
                + "first 200 \(recovered.map { $0 - thawedAt } ?? .zero) after SIGCONT")
        #expect(duringFreeze.contains { $0.status == 503 }, "no dispatch was refused while PostgreSQL was frozen")
        for attempt in seen {
            #expect(attempt.status == 200 || attempt.status == 503, "a dispatch answered \(attempt.status)")
            #expect(attempt.status != 503 || attempt.retryAfter, "a 503 without Retry-After")
            #expect(attempt.took <= .seconds(5), "a dispatch took \(attempt.took)")
        }
        // Nothing acknowledged was lost, nothing was applied twice.
        try await onOwnThread {
            let client = try SessionClient(port: port, timeout: .seconds(6))
            for (index, session) in busy.enumerated() {
                let mine = seen.filter { $0.session == index }
                let acknowledged = mine.filter { $0.status == 200 }.count
                let value = try #require(counter(try json(try client.read(session, views: "counter"))))
                #expect(value >= acknowledged, "session \(index): \(acknowledged) acknowledged, counter \(value)")
                #expect(value <= mine.count)
            }
        }
        try await server.stop()
    }

    /// One load thread: dispatches round-robin to `sessions` until `stop` is set, timing each answer.
    static func load(worker: Int, sessions: [TestSession], port: UInt16, stop: Flag) -> [Attempt] {
        var attempts: [Attempt] = []
        var client = try? SessionClient(port: port, timeout: .seconds(10))
        var round = 0
        while !stop.isSet {
            let index = (worker + round) % sessions.count
            round += 1
            if client == nil { client = try? SessionClient(port: port, timeout: .seconds(10)) }
            let started = ContinuousClock.now
            let response = try? client?.dispatch(sessions[index], increase)
            let took = ContinuousClock.now - started
            attempts.append(
                Attempt(
                    session: index, started: started, took: took, status: response?.status ?? 0,
                    retryAfter: response?.header("Retry-After") != nil))
            if response == nil { client = nil }
            if response?.status == 503 { usleep(100_000) }
        }
        return attempts
    }
}
