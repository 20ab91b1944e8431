import ExampleApp
import Foundation
import ReMVVMClient
import Synchronization
import Testing

/// The client across server crashes and its own restarts: the cursor resumed, the outbox delivered exactly once.
@Suite(.serialized) struct ResilienceTests {
    @Test(arguments: [RemoteStore.ChangeFeed.eventStream, .longPoll])
    func resumesByItsCursorAfterTheServerIsKilled(feed: RemoteStore.ChangeFeed) async throws {
        let folder = try temporaryFolder()
        let data = folder.appendingPathComponent("data").path
        var server = try await onOwnThread { try ServerProcess(dataDirectory: data) }
        let port = server.port
        let followed = try await FollowedSession.start(url: server.url, feed: feed)
        defer { Task { await followed.close() } }
        let (writer, recorder, values) = (followed.writer, followed.recorder, followed.values)

        server.crash()
        _ = try await first(recorder.stream()) { if case .retrying = $0 { true } else { false } }
        server = try await onOwnThread { try ServerProcess(dataDirectory: data, port: port) }
        _ = try await writer.send(CounterAction.Increase())
        _ = try await first(values) { $0.counter == "2" }

        let history = await recorder.values
        let snapshots = history.filter { if case .snapshot = $0 { true } else { false } }
        let resets = history.filter { if case .reset = $0 { true } else { false } }
        #expect(snapshots.count == 1, "only the first read is whole: \(history)")
        #expect(resets.isEmpty, "\(history)")
        #expect(history.last.map { if case .change = $0 { true } else { false } } == true, "\(history)")
        withExtendedLifetime(server) {}
    }

    @Test func outboxDeliversActionsQueuedOfflineExactlyOnceInOrderAfterARestart() async throws {
        let count = 500
        let folder = try temporaryFolder()
        let data = folder.appendingPathComponent("data").path
        var server = try await onOwnThread { try ServerProcess(dataDirectory: data) }
        let port = server.port
        let url = server.url
        let sessions = FileSessionStore(url: folder.appendingPathComponent("session.json"))
        let configuration = RemoteStore.Configuration(
            outboxURL: folder.appendingPathComponent("outbox.json"),
            retry: RetryPolicy(initialDelay: .milliseconds(50), maximumDelay: .milliseconds(500)),
            followsChanges: false)

        let before = try RemoteStore(url: url, sessionStore: sessions, configuration: configuration)
        try await before.connect()
        _ = try await before.send(CounterAction.Set(value: 0))
        server.crash()
        var keys: [String] = []
        for _ in 0..<count { keys.append(try await before.enqueue(CounterAction.Increase())) }
        #expect(await before.pendingActions == count)
        // The process "dies": the store stops with everything still queued, and only its files remain.
        await before.close()

        let after = try RemoteStore(url: url, sessionStore: sessions, configuration: configuration)
        #expect(await after.pendingActions == count)
        let events = await after.outboxEvents()
        server = try await onOwnThread { try ServerProcess(dataDirectory: data, port: port) }
        try await after.connect()
        defer { Task { await after.close() } }

        // A hundred in, the server is killed under the delivery, so some attempt is committed without an answer;
        // the retry of its key after the restart is answered from the stored commit, not applied again.
        let restarted = Mutex<ServerProcess?>(nil)
        let running = server
        let delivered = try await collect(count, from: events) { outcomes in
            guard outcomes.count == 100 else { return }
            running.crash()
            let next = try ServerProcess(dataDirectory: data, port: port)
            restarted.withLock { $0 = next }
        }
        #expect(restarted.withLock { $0 != nil })
        #expect(delivered.map(\.key) == keys)
        #expect(delivered.allSatisfy { $0.isApplied })
        let numbers = delivered.compactMap { UInt64($0.version.rawValue.split(separator: ".").last ?? "") }
        #expect(numbers == numbers.sorted() && Set(numbers).count == count, "one version per action, in order")
        #expect(try await after.view("counter", as: CounterView.self) == CounterView(counter: "\(count)"))
        #expect(await after.pendingActions == 0)
        withExtendedLifetime(server) {}
    }
}

/// The first `count` outbox events, which must all be deliveries, within 120 s; `step` runs after each one.
private func collect(
    _ count: Int, from events: AsyncStream<OutboxEvent>, step: @escaping @Sendable ([ActionOutcome]) throws -> Void
) async throws -> [ActionOutcome] {
    try await withThrowingTaskGroup(of: [ActionOutcome].self) { group in
        group.addTask {
            var outcomes: [ActionOutcome] = []
            for await event in events {
                guard case .delivered(let outcome) = event else { throw TestFailure("not delivered: \(event)") }
                outcomes.append(outcome)
                try step(outcomes)
                if outcomes.count == count { break }
            }
            return outcomes
        }
        group.addTask {
            try await Task.sleep(for: .seconds(120))
            throw TestFailure("the outbox was not delivered within 120 s")
        }
        defer { group.cancelAll() }
        return try await group.next() ?? []
    }
}
