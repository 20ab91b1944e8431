import ExampleApp
import Foundation
@_spi(ReMVVMServer) import ReMVVM
import Synchronization

@testable import ReMVVMPersistence

/// A quote service for tests: answers at once, or never (until cancelled) when `hangs`.
final class TestQuotes: QuoteService {
    let hangs: Bool
    private let count = Mutex(0)

    /// How many quotes were asked for.
    var calls: Int { count.withLock { $0 } }

    init(hangs: Bool = false) {
        self.hangs = hangs
    }

    func quote(category: String) async throws -> String {
        count.withLock { $0 += 1 }
        if hangs { try await Task.sleep(for: .seconds(3600)) }
        return "A quote about \(category)."
    }
}

/// The example app with a test quote service and a hub of its own (a server would give it the server's).
func exampleApp(quotes: TestQuotes = TestQuotes()) -> StoreDefinition<AppState> {
    var services = Services()
    services.quotes = quotes
    return ExampleApp.definition(services: services, topics: TopicHub())
}

extension StoreDefinition {
    /// The hub these tests give their definitions (a fresh one, which nothing hears, if a test forgot).
    var hub: TopicHub { topics ?? TopicHub() }
}

/// A new session's identity.
func newRecord(_ id: String = UUID().uuidString) -> SessionRecord {
    SessionRecord(
        id: id, tokenHash: Hashing.tokenHash("token-\(id)"), epoch: "epoch\(id.prefix(4))",
        created: Date(timeIntervalSince1970: 1_000))
}

extension SessionPersistence {
    /// Waits until everything queued so far is durable; the error, if any.
    func durable() async -> StorageError? {
        await withCheckedContinuation { continuation in
            whenDurable { error in continuation.resume(returning: error) }
        }
    }
}

/// A restored session's typed store.
func typed(_ session: RestoredSession) throws -> Store<AppState> {
    let base = (session.store as? AnyProjectedStore)?.base ?? session.store
    guard let store = base as? Store<AppState> else { throw FixtureError("not a Store<AppState>") }
    return store
}

/// A session's state as JSON, with one key's value replaced (to make stored state undecodable or old).
func stateJSON(_ state: AppState, replacing key: String, with value: Any?, renaming newKey: String? = nil) throws
    -> Data
{
    var object = try JSONSerialization.jsonObject(with: JSONEncoder().encode(state)) as? [String: Any] ?? [:]
    let old = object.removeValue(forKey: key)
    object[newKey ?? key] = value ?? old
    return try JSONSerialization.data(withJSONObject: object)
}

struct FixtureError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// Waits, with a deadline, until `condition` holds.
func eventually(timeout: Duration = .seconds(3), _ condition: () -> Bool) async -> Bool {
    let deadline = ContinuousClock.now + timeout
    while ContinuousClock.now < deadline {
        if condition() { return true }
        try? await Task.sleep(for: .milliseconds(5))
    }
    return condition()
}

/// The durable sessions a test opened, so that their writer threads end with the test.
final class Opened: Sendable {
    private let all = Mutex<[DurableSessions<AppState>]>([])

    func add(_ sessions: DurableSessions<AppState>) {
        all.withLock { $0.append(sessions) }
    }

    /// Stops every writer the way a crash would (no final snapshots).
    func stopAll() {
        for sessions in all.withLock({ $0 }) { sessions.stop(snapshotting: false) }
    }
}
