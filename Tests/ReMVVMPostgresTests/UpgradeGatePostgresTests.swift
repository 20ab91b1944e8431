import Foundation
import PostgresTestSupport
@_spi(ReMVVMServer) import ReMVVM
import Testing

@testable import ReMVVMPersistence
@testable import ReMVVMPostgres

/// The replay gate on a real PostgreSQL written by version 1 of a small app through the cluster's storage: version 2
/// passes, a changed reducer fails naming the first divergent action, and the gate moves no lease.
@Suite(.enabled(if: TestDatabase.baseURL != nil, Comment(rawValue: TestDatabase.whyDisabled)))
final class UpgradeGatePostgresTests {
    let database: TestDatabase

    init() throws {
        database = try TestDatabase()
    }

    struct State: Codable, Sendable, Equatable {
        var count = 0
    }

    struct Add: StoreAction {
        static let wireName = "tally/add"
        var amount: Int
    }

    struct SetV1: StoreAction {
        static let wireName = "tally/set"
        var value: Int
    }

    struct SetV2: StoreAction {
        static let wireName = "tally/set"
        static let wireVersion = 2
        var count: Int

        private struct Version1: Decodable { let value: Int }

        static func migrate(payload: Data, from version: Int) throws -> SetV2 {
            SetV2(count: try JSONDecoder().decode(Version1.self, from: payload).value)
        }
    }

    func version1() -> StoreDefinition<State> {
        StoreDefinition(
            initialState: State(),
            reducer: AnyReducer(
                .on(Add.self) { (state: inout State, action: Add) in state.count += action.amount },
                .on(SetV1.self) { (state: inout State, action: SetV1) in state.count = action.value }),
            projections: Projections())
    }

    func version2(addsTwice: Bool = false) -> StoreDefinition<State> {
        StoreDefinition(
            initialState: State(),
            reducer: AnyReducer(
                .on(Add.self) { (state: inout State, action: Add) in
                    state.count += addsTwice ? 2 * action.amount : action.amount
                },
                .on(SetV2.self) { (state: inout State, action: SetV2) in state.count = action.count }),
            projections: Projections())
    }

    func record(_ id: String) -> SessionRecord {
        SessionRecord(
            id: id, tokenHash: Hashing.tokenHash("token-\(id)"), epoch: "epoch-\(id)",
            created: Date(timeIntervalSince1970: 1_000))
    }

    /// Two runs of version 1 (two nodes in turn), each stopped cleanly: "a" sets, then adds; "b" only sets.
    func writeVersion1() async throws {
        for run in 0..<2 {
            let storage = try PostgresSessionStorage(
                url: database.url, node: "v1-\(run)", timeouts: TestDatabase.timeouts)
            let durable = DurableSessions(version1(), storage: storage)
            for id in ["a", "b"] {
                let store: Store<State>
                if run == 0 {
                    store = durable.makeTypedStore(for: record(id))
                } else {
                    let restored = try #require(try durable.load(id, tokenHash: Hashing.tokenHash("token-\(id)")))
                    store = try #require((restored.store as? AnyProjectedStore)?.base as? Store<State>)
                }
                if id == "a", run == 1 {
                    try store.dispatch(Add(amount: 3))
                } else {
                    try store.dispatch(SetV1(value: 10 * (run + 1)))
                }
            }
            _ = await withCheckedContinuation { continuation in
                durable.whenDurable { continuation.resume(returning: $0) }
            }
            durable.shutdown()
        }
    }

    @Test func aDatabaseWrittenByVersion1PassesForVersion2AndTheGateMovesNoLease() async throws {
        try await writeVersion1()
        let connection = try database.connect()
        let fences = try connection.execute("SELECT fence FROM sessions ORDER BY id")
        let source = try PostgresSessionHistory(url: database.url, timeouts: TestDatabase.timeouts)
        defer { source.close() }
        let report = try UpgradeGate(version2()).run(source)
        #expect(report.passed, "\(report.text)")
        #expect(report.matched == 2)
        #expect(report.replayed == 2)
        let after = try connection.execute("SELECT fence FROM sessions ORDER BY id")
        #expect(try (0..<2).map { try after.int64($0, 0) } == (0..<2).map { try fences.int64($0, 0) })
    }

    @Test func aChangedReducerFailsNamingTheFirstDivergentAction() async throws {
        try await writeVersion1()
        let source = try PostgresSessionHistory(url: database.url, timeouts: TestDatabase.timeouts)
        defer { source.close() }
        let report = try UpgradeGate(version2(addsTwice: true)).run(source)
        #expect(!report.passed)
        #expect(report.matched == 1)
        let first = try #require(report.failures.first)
        #expect(first.session == "a")
        #expect(first.outcome == .divergent)
        #expect(first.version == 2)
        #expect(first.action == "tally/add")
        #expect(first.checkedAt == 2)
    }
}

/// A node of the build before schema 7 replaces snapshots without a digest: the one it replaces must not stand for
/// the new state.
@Suite(.enabled(if: TestDatabase.baseURL != nil, Comment(rawValue: TestDatabase.whyDisabled)))
final class StaleDigestTests {
    let database: TestDatabase

    init() throws {
        database = try TestDatabase()
    }

    @Test func anOlderNodesSnapshotClearsTheDigestItReplaces() throws {
        let storage = try PostgresSessionStorage(url: database.url, node: "v2", timeouts: TestDatabase.timeouts)
        defer { storage.close() }
        let record = SessionRecord(
            id: "a", tokenHash: Hashing.tokenHash("token-a"), epoch: "epoch-a", created: Date(timeIntervalSince1970: 1))
        let state = Data(#"{"count":1}"#.utf8)
        try storage.write([
            .create(record),
            .snapshot(
                session: "a",
                StoredSnapshot(
                    version: 1, stateType: "S", stateVersion: 1, state: state,
                    digest: Hashing.sha256([UInt8](state)))),
        ])
        let connection = try database.connect()
        // What the older build's batch sends for a snapshot: no digest column.
        try connection.execute(
            """
            INSERT INTO snapshots (session, version, format, state_type, state_version, state)
            VALUES ('a', 2, 1, 'S', 1, '\\x7b7d'::bytea)
            ON CONFLICT (session) DO UPDATE SET version = EXCLUDED.version, format = EXCLUDED.format,
                state_type = EXCLUDED.state_type, state_version = EXCLUDED.state_version, state = EXCLUDED.state
            """)
        let history = try #require(try PostgresSessionHistory(url: database.url).history("a"))
        #expect(history.latest?.version == 2)
        #expect(history.latest?.digest == nil)
    }
}
