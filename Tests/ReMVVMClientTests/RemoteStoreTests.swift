import ExampleApp
import Foundation
import ReMVVMClient
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The client against the real server over loopback: typed sends, reads and follows, predictions, limits.
@Suite(.serialized) struct RemoteStoreTests {
    @Test func sendsTypedActionsAndReadsTypedViews() async throws {
        let folder = try temporaryFolder()
        let server = try await onOwnThread {
            try ServerProcess(dataDirectory: folder.appendingPathComponent("data").path)
        }
        let sessions = FileSessionStore(url: folder.appendingPathComponent("session.json"))
        let store = try RemoteStore(url: server.url, sessionStore: sessions)
        try await store.connect()
        defer { Task { await store.close() } }

        let first = try await store.send(CounterAction.Increase())
        let second = try await store.send(CounterAction.Set(value: 41))
        #expect(first.result == .applied && second.result == .applied)
        #expect(second.type == "counter/set")
        #expect(try await store.view("counter", as: CounterView.self) == CounterView(counter: "41"))
        // The session was kept: another store resumes it from the file.
        let stored = try #require(try sessions.load())
        #expect(await store.session == stored)

        let blocked = try await store.send(UserAction.Login(firstName: "", lastName: "Lovelace"))
        guard case .blocked(let reason) = blocked.result else {
            Issue.record("expected a blocked login, got \(blocked.result)")
            return
        }
        #expect(reason.contains("required"))
    }

    @Test(arguments: [RemoteStore.ChangeFeed.eventStream, .longPoll])
    func followsChangesMadeByAnotherClient(feed: RemoteStore.ChangeFeed) async throws {
        let folder = try temporaryFolder()
        let server = try await onOwnThread {
            try ServerProcess(dataDirectory: folder.appendingPathComponent("data").path)
        }
        let writer = try RemoteStore(url: server.url, configuration: .init(followsChanges: false))
        try await writer.connect()
        let session = try #require(await writer.session)
        let follower = try RemoteStore(
            url: server.url, sessionStore: MemorySessionStore(session), configuration: .init(changeFeed: feed))
        try await follower.connect()
        defer {
            Task {
                await writer.close(); await follower.close()
            }
        }

        let values = await follower.follow("counter", as: CounterView.self)
        for _ in 0..<3 { _ = try await writer.send(CounterAction.Increase()) }
        let seen = try await first(values) { $0.counter == "3" }
        #expect(seen == CounterView(counter: "3"))
    }

    @Test func blockedPredictionIsRolledBackAndAppliedOneIsReplaced() async throws {
        let folder = try temporaryFolder()
        let server = try await onOwnThread {
            try ServerProcess(dataDirectory: folder.appendingPathComponent("data").path)
        }
        let store = try RemoteStore(url: server.url)
        try await store.connect()
        defer { Task { await store.close() } }
        let logins = await store.follow("login", as: LoginView.self)
        let recorded = Recorder<LoginView>()
        let reading = Task {
            for try await view in logins { await recorded.append(view) }
        }
        defer { reading.cancel() }
        _ = try await first(recorded.stream()) { !$0.loggedIn }

        let outcome = try await store.send(
            UserAction.Login(firstName: "", lastName: "Lovelace"), predicting: "login", as: LoginView.self
        ) { $0.loggedIn = true }
        guard case .blocked = outcome.result else {
            Issue.record("expected a blocked login, got \(outcome.result)")
            return
        }
        // The prediction was shown, then rolled back to the server's view.
        let history = await recorded.values
        #expect(history.contains { $0.loggedIn })
        #expect(history.last?.loggedIn == false)
        #expect(try await store.currentView("login", as: LoginView.self)?.loggedIn == false)

        // An applied action's prediction shows at once and is then replaced by the server's view.
        let counters = await store.follow("counter", as: CounterView.self)
        try await store.enqueue(CounterAction.Set(value: 7), predicting: "counter", as: CounterView.self) {
            $0.counter = "7 (sending)"
        }
        #expect(try await first(counters) { $0.counter != "0" } == CounterView(counter: "7 (sending)"))
        #expect(try await first(counters) { $0.counter != "7 (sending)" } == CounterView(counter: "7"))
    }

    @Test func waitsOutTooManyPolls() async throws {
        let folder = try temporaryFolder()
        let server = try await onOwnThread {
            try ServerProcess(
                dataDirectory: folder.appendingPathComponent("data").path, arguments: ["--max-polls-per-session", "1"])
        }
        let writer = try RemoteStore(url: server.url, configuration: .init(followsChanges: false))
        try await writer.connect()
        let session = try #require(await writer.session)
        let version = try #require(await writer.version)
        // Another reader holds the session's only long-poll slot for 3 s (trying again if a probe held it first); a
        // probe that gets 429 proves it is parked.
        let parked = Task {
            var status = 429
            while status == 429 { status = try await rawPoll(server, session, since: version, wait: "3s") }
            return status
        }
        var proven = false
        for _ in 0..<200 where !proven {
            proven = try await rawPoll(server, session, since: version, wait: "0ms") == 429
            if !proven { try await Task.sleep(for: .milliseconds(20)) }
        }
        #expect(proven)

        let follower = try RemoteStore(
            url: server.url, sessionStore: MemorySessionStore(session), configuration: .init(changeFeed: .longPoll))
        let events = await follower.syncEvents()
        try await follower.connect()
        defer {
            Task {
                await writer.close(); await follower.close()
            }
        }
        let refused = try await first(events) {
            if case .retrying(let error) = $0 { return error.status == 429 } else { return false }
        }
        #expect(refused != .snapshot(version))
        #expect(try await parked.value == 200)
        // Once the slot is free the follower parks its own poll and sees the next change.
        let values = await follower.follow("counter", as: CounterView.self)
        _ = try await writer.send(CounterAction.Set(value: 5))
        #expect(try await first(values) { $0.counter == "5" } == CounterView(counter: "5"))
    }
}

/// One long-poll with URLSession; answers the status.
private func rawPoll(_ server: ServerProcess, _ session: StoredSession, since: StoreVersion, wait: String) async throws
    -> Int
{
    let url = try #require(
        URL(string: "v1/sessions/\(session.id)/poll?since=\(since)&wait=\(wait)", relativeTo: server.url))
    var request = URLRequest(url: url)
    request.setValue("Bearer \(session.token)", forHTTPHeaderField: "Authorization")
    let (_, response) = try await URLSession.shared.data(for: request)
    return (response as? HTTPURLResponse)?.statusCode ?? 0
}

/// Values a test saw, in order, and a stream of them as they come.
actor Recorder<Value: Sendable> {
    private(set) var values: [Value] = []
    private var listeners: [AsyncStream<Value>.Continuation] = []

    func append(_ value: Value) {
        values.append(value)
        for listener in listeners { listener.yield(value) }
    }

    /// The values so far, then each new one.
    func stream() -> AsyncStream<Value> {
        let (stream, continuation) = AsyncStream.makeStream(of: Value.self)
        for value in values { continuation.yield(value) }
        listeners.append(continuation)
        return stream
    }
}

/// The session ending, and the observable model.
@Suite(.serialized) struct SessionEndTests {
    @Test func aDeletedSessionEndsFollowingWithAnErrorNotRetries() async throws {
        let folder = try temporaryFolder()
        let server = try await onOwnThread {
            try ServerProcess(dataDirectory: folder.appendingPathComponent("data").path)
        }
        let sessions = MemorySessionStore()
        let store = try RemoteStore(url: server.url, sessionStore: sessions)
        try await store.connect()
        defer { Task { await store.close() } }
        let session = try #require(await store.session)
        let values = await store.follow("counter", as: CounterView.self)

        let url = try #require(URL(string: "v1/sessions/\(session.id)", relativeTo: server.url))
        var request = URLRequest(url: url)
        request.httpMethod = "DELETE"
        request.setValue("Bearer \(session.token)", forHTTPHeaderField: "Authorization")
        let (_, response) = try await URLSession.shared.data(for: request)
        #expect((response as? HTTPURLResponse)?.statusCode == 204)

        let kind = try await within(.seconds(30)) {
            do {
                for try await _ in values {}
                return ClientError.Kind.invalidAnswer  // Finished without an error: not what a deleted session does.
            } catch let error as ClientError {
                return error.kind
            }
        }
        #expect(kind == .sessionNotFound)
        #expect(sessions.load() == nil)
        await #expect(throws: ClientError.self) { try await store.send(CounterAction.Increase()) }
    }

    @MainActor @Test func liveViewShowsTheFollowedView() async throws {
        let folder = try temporaryFolder()
        let server = try await onOwnThread {
            try ServerProcess(dataDirectory: folder.appendingPathComponent("data").path)
        }
        let store = try RemoteStore(url: server.url)
        try await store.connect()
        defer { Task { await store.close() } }
        let live = LiveView(store, view: "counter", as: CounterView.self)
        _ = try await store.send(CounterAction.Set(value: 3))
        let deadline = ContinuousClock.now + .seconds(10)
        while live.value != CounterView(counter: "3"), ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(20))
        }
        #expect(live.value == CounterView(counter: "3"))
    }
}
