import Foundation
import HTTPTestClient
import Testing

/// The real `remvvm-server` as a subprocess, with a temporary data directory: crashes, clean
/// restarts and damaged storage. Serialized: each test runs servers of its own.
@Suite(.serialized) final class ServerDurabilityTests {
    let dataDirectory = temporaryPath("durability")

    deinit {
        try? FileManager.default.removeItem(atPath: dataDirectory)
    }

    /// What one dispatching thread saw before the crash.
    struct Acknowledged: Sendable {
        var attempted: [Int: Int] = [:]
        var acknowledged: [Int: Int] = [:]
        /// The highest acknowledged cursor per session.
        var lastCursor: [Int: String] = [:]
    }

    static let increase = #"{"type":"counter/increase"}"#

    @Test func aCrashLosesNoAcknowledgedDispatch() async throws {
        let server = try await ServerProcess.start(dataDirectory: dataDirectory)
        let port = server.port
        let sessions = try await onOwnThread {
            let client = try SessionClient(port: port)
            return try (0..<12).map { _ in try client.createSession() }
        }
        let stop = Flag()
        let acknowledged = Count()
        let workers = 6
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
        // Crash in the middle of the load: dispatches are in flight when the process dies.
        let deadline = ContinuousClock.now + .seconds(15)
        while acknowledged.current < 300, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(5)) }
        try await onOwnThread { server.crash() }
        stop.set()
        let seen = try await results
        #expect(acknowledged.current >= 300, "only \(acknowledged.current) dispatches were acknowledged in 15 s")

        let restarted = try await ServerProcess.start(dataDirectory: dataDirectory)
        #expect(restarted.log.contains("sessions.restored=12"))
        try await onOwnThread {
            let client = try SessionClient(port: restarted.port)
            var totalAcknowledged = 0
            for (index, session) in sessions.enumerated() {
                let acked = seen.reduce(0) { $0 + ($1.acknowledged[index] ?? 0) }
                let attempted = seen.reduce(0) { $0 + ($1.attempted[index] ?? 0) }
                totalAcknowledged += acked
                let read = try client.read(session, views: "counter")
                try #require(read.status == 200, "session \(index) was not restored")
                let body = try json(read)
                let value = try #require(counter(body))
                let cursor = try #require(body["version"] as? String)
                // Every acknowledged dispatch is in the state; nothing beyond what was sent.
                #expect(value >= acked, "session \(index): \(acked) acknowledged, counter \(value)")
                #expect(value <= attempted)
                // One version per applied dispatch: no gap, no duplicate, same history.
                #expect(cursor == "\(session.epoch).\(value)")

                // Versions continue without a gap.
                let next = try json(try client.dispatch(session, Self.increase))
                #expect(next["version"] as? String == "\(session.epoch).\(value + 1)")

                // A long-poll from the last acknowledged cursor resumes with the change (the counter view, shorter than
                // any patch, whole), not a reset.
                let since = seen.compactMap { $0.lastCursor[index] }.max {
                    versionNumber($0) ?? 0 < versionNumber($1) ?? 0
                }
                let poll = try json(try client.poll(session, since: since ?? session.cursor))
                #expect(poll["reset"] == nil, "\(poll)")
                #expect(poll["to"] as? String == "\(session.epoch).\(value + 1)")
                let change = (poll["views"] as? [String: Any])?["counter"] as? [String: Any]
                #expect(change?.keys.sorted() == ["full"], "\(poll)")
                #expect(counter(["views": ["counter": change?["full"] as Any]]) == value + 1, "\(poll)")
            }
            #expect(totalAcknowledged == acknowledged.current)
        }
        try await restarted.stop()
    }

    /// One dispatching thread: increases counters round-robin until the server dies or `stop` is set.
    static func dispatch(
        worker: Int, of workers: Int, to sessions: [TestSession], port: UInt16, stop: Flag, count: Count
    ) -> Acknowledged {
        var seen = Acknowledged()
        guard let client = try? SessionClient(port: port, timeout: .seconds(3)) else { return seen }
        for round in 0..<150 where !stop.isSet {
            let index = (worker * 5 + round) % sessions.count
            seen.attempted[index, default: 0] += 1
            guard let response = try? client.dispatch(sessions[index], increase), response.status == 200,
                let version = (try? json(response))?["version"] as? String
            else { break }
            seen.acknowledged[index, default: 0] += 1
            seen.lastCursor[index] = version
            count.add()
        }
        return seen
    }
}
