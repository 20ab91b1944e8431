import Foundation
import HTTPTestClient
import Testing

/// SIGTERM to the real `remvvm-server` while it is under load: parked long-polls are answered with their
/// cursor, event streams get `end`, and the process exits 0 within a bound.
@Suite(.serialized) final class GracefulShutdownTests {
    let dataDirectory = temporaryPath("shutdown")

    deinit {
        try? FileManager.default.removeItem(atPath: dataDirectory)
    }

    /// How long the process may take from SIGTERM to its exit.
    static let exitBound: Duration = .seconds(10)
    static let parkedPolls = 8

    @Test func sigtermUnderLoadAnswersParkedPollsEndsStreamsAndExitsZero() async throws {
        let server = try await ServerProcess.start(dataDirectory: dataDirectory)
        let port = server.port
        let (watched, busy) = try await onOwnThread {
            let client = try SessionClient(port: port)
            return (try client.createSession(), try (0..<4).map { _ in try client.createSession() })
        }
        // Long-polls parked on a session nobody changes: only the shutdown can answer them.
        let polls = (0..<Self.parkedPolls).map { _ in
            Task {
                try await onOwnThread {
                    try SessionClient(port: port, timeout: .seconds(30)).poll(
                        watched, since: watched.cursor, wait: "50s")
                }
            }
        }
        // An event stream on a busy session, read until it ends.
        let stream = Task {
            try await onOwnThread { () -> [String] in
                let client = try TestHTTPClient(port: port, timeout: .seconds(30))
                let busySession = busy[0]
                let head = try client.openEventStream(
                    "\(busySession.path)/events?views=counter", headers: [busySession.authorization])
                guard head.status == 200 else { throw ServerProcessError("events answered \(head.status)") }
                var names: [String] = []
                while let event = try client.readEvent() { names.append(event.event ?? "message") }
                return names
            }
        }
        // Dispatches on the busy sessions until the server goes away (or 20 s pass), paced so that the
        // load does not starve the other suites running meanwhile on two cores.
        let stop = Flag()
        let acknowledged = Count()
        let load = (0..<3).map { worker in
            Task {
                try await onOwnThread {
                    guard let client = try? SessionClient(port: port, timeout: .seconds(3)) else { return }
                    let deadline = ContinuousClock.now + .seconds(20)
                    var round = 0
                    while !stop.isSet, ContinuousClock.now < deadline {
                        round += 1
                        let session = busy[(worker + round) % busy.count]
                        guard let response = try? client.dispatch(session, #"{"type":"counter/increase"}"#),
                            response.status == 200
                        else { return }
                        acknowledged.add()
                        usleep(2_000)
                    }
                }
            }
        }
        try await waitUntil("every poll is parked and the load runs") {
            let metrics = try SessionClient(port: port).http.request("GET", "/metrics").text
            return metrics.contains("remvvm_parked_polls \(Self.parkedPolls)") && acknowledged.current >= 50
        }

        let signalled = ContinuousClock.now
        let status = try await onOwnThread { try server.terminate(timeout: Self.exitBound) }
        let exitTime = ContinuousClock.now - signalled
        stop.set()
        #expect(status == 0, "remvvm-server exited with \(status):\n\(server.log)")
        #expect(exitTime < Self.exitBound)

        for poll in polls {
            let response = try await poll.value
            #expect(response.status == 200, "a parked poll got \(response.status): \(response.text)")
            let body = try json(response)
            #expect(body["from"] as? String == watched.cursor)
            #expect(body["to"] as? String == watched.cursor)
            #expect((body["views"] as? [String: Any])?.isEmpty == true)
        }
        let events = try await stream.value
        #expect(events.first == "snapshot")
        #expect(events.last == "end", "the stream ended with \(events.suffix(3))")
        for worker in load { try await worker.value }
        #expect(server.log.contains("server stopped"))
    }

    /// Polls `condition` on a thread of its own every 20 ms for at most 10 s.
    private func waitUntil(_ what: String, _ condition: @escaping @Sendable () throws -> Bool) async throws {
        let met = try await onOwnThread {
            let deadline = ContinuousClock.now + .seconds(10)
            while ContinuousClock.now < deadline {
                if (try? condition()) == true { return true }
                usleep(20_000)
            }
            return false
        }
        try #require(met, "timed out waiting until \(what)")
    }
}
