import ExampleApp
import Foundation
import PropertyBased
import ReMVVMClient
import Synchronization
import Testing

/// Random interleavings of two clients on one session, with predictions, dropped connections and server crashes:
/// once quiet, both show the server's views, and every action was applied exactly once.
@Suite(.serialized) struct InterleavingPropertyTests {
    /// One step of a run.
    enum Step: CaseIterable {
        case firstSends, secondQueues, firstPredicts, secondIsBlocked, firstReconnects, secondReconnects, serverCrashes
    }

    @Test(.shrinking(false)) func twoClientsConvergeAndApplyEachActionOnce() async throws {
        let folder = try temporaryFolder()
        let data = folder.appendingPathComponent("data").path
        let first = try await onOwnThread { try ServerProcess(dataDirectory: data) }
        let server = Mutex(first)
        let url = first.url
        let port = first.port
        let fast = RemoteStore.Configuration(
            retry: RetryPolicy(initialDelay: .milliseconds(20), maximumDelay: .milliseconds(300)))
        // Crashes are rarer than the other steps: each costs a restart.
        let steps = Gen.int(in: 0...12).map { index in Step.allCases[min(index / 2, Step.allCases.count - 1)] }

        await propertyCheck(count: 30, input: steps.array(of: 3...14)) { steps in
            var a = try RemoteStore(url: url, configuration: fast)
            try await a.connect()
            let session = try #require(await a.session)
            var b = try RemoteStore(url: url, sessionStore: MemorySessionStore(session), configuration: fast)
            try await b.connect()
            var increases = 0
            var queued: [Task<ActionOutcome, any Error>] = []
            for step in steps {
                switch step {
                case .firstSends:
                    #expect(try await a.send(CounterAction.Increase()).isApplied)
                    increases += 1
                case .secondQueues:
                    let store = b
                    queued.append(Task { try await store.send(CounterAction.Increase()) })
                    increases += 1
                case .firstPredicts:
                    let outcome = try await a.send(
                        CounterAction.Increase(), predicting: "counter", as: CounterView.self
                    ) {
                        $0.counter = Int($0.counter).map { String($0 + 1) } ?? $0.counter
                    }
                    #expect(outcome.isApplied)
                    increases += 1
                case .secondIsBlocked:
                    let outcome = try await b.send(
                        UserAction.Login(firstName: "", lastName: "X"), predicting: "login", as: LoginView.self
                    ) { $0.loggedIn = true }
                    #expect(!outcome.isApplied)
                case .firstReconnects:
                    await a.close()
                    a = try RemoteStore(url: url, sessionStore: MemorySessionStore(session), configuration: fast)
                    try await a.connect()
                case .secondReconnects:
                    // Whatever b still has queued is awaited first: closing would end its waiting `send`.
                    for task in queued { #expect(try await task.value.isApplied) }
                    queued = []
                    await b.close()
                    b = try RemoteStore(url: url, sessionStore: MemorySessionStore(session), configuration: fast)
                    try await b.connect()
                case .serverCrashes:
                    try await onOwnThread {
                        try server.withLock { running in
                            running.crash()
                            running = try ServerProcess(dataDirectory: data, port: port)
                        }
                    }
                }
            }
            for task in queued { #expect(try await task.value.isApplied) }

            let expected = CounterView(counter: "\(increases)")
            #expect(try await a.view("counter", as: CounterView.self) == expected, "\(steps)")
            let login = try await a.view("login", as: LoginView.self)
            for store in [a, b] {
                try await converged(store, counter: expected, login: login)
                await store.close()
            }
        }
    }

    /// Waits (at most 10 s) until `store` shows `counter` and `login`, predictions gone.
    private func converged(_ store: RemoteStore, counter: CounterView, login: LoginView) async throws {
        let deadline = ContinuousClock.now + .seconds(10)
        while ContinuousClock.now < deadline {
            let shownCounter = try await store.currentView("counter", as: CounterView.self)
            let shownLogin = try await store.currentView("login", as: LoginView.self)
            if shownCounter == counter, shownLogin == login { return }
            try await Task.sleep(for: .milliseconds(20))
        }
        let shown = try await store.currentView("counter", as: CounterView.self)
        Issue.record("the client shows \(String(describing: shown)), the server \(counter)")
    }
}
