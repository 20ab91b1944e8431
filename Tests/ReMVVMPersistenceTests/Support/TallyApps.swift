import Foundation
@_spi(ReMVVMServer) import ReMVVM

@testable import ReMVVMPersistence

/// Two builds of one small app, as a deploy sees them: version 1, then version 2, whose state gains a field and
/// whose `tally/set` payload renames `value` to `count`.
enum TallyV1 {
    struct State: Codable, Sendable, Equatable {
        var count = 0
        var notes: [String: Int] = [:]
    }

    struct Add: StoreAction {
        static let wireName = "tally/add"
        var amount: Int
    }

    struct Set: StoreAction {
        static let wireName = "tally/set"
        var value: Int
    }

    static func definition() -> StoreDefinition<State> {
        StoreDefinition(
            initialState: State(),
            reducer: AnyReducer(
                .on(Add.self) { (state: inout State, action: Add) in
                    state.count += action.amount
                    state.notes["add\(action.amount)", default: 0] += 1
                },
                .on(Set.self) { (state: inout State, action: Set) in state.count = action.value }),
            projections: Projections(), clientActions: [Add.self, Set.self])
    }
}

enum TallyV2 {
    struct State: Codable, Sendable, Equatable {
        var count = 0
        var notes: [String: Int] = [:]
        /// New in version 2; the migration gives older states its default.
        var label = "tally"
    }

    struct Add: StoreAction {
        static let wireName = "tally/add"
        var amount: Int
    }

    /// Version 2 of `tally/set`: `value` became `count`.
    struct Set: StoreAction, Equatable {
        static let wireName = "tally/set"
        static let wireVersion = 2
        var count: Int

        private struct Version1: Decodable { let value: Int }

        static func migrate(payload: Data, from version: Int) throws -> Set {
            Set(count: try JSONDecoder().decode(Version1.self, from: payload).value)
        }
    }

    /// The state's version 1 had no `label`.
    static func migrateState(_ json: Data, from version: Int) throws -> Data {
        var object = try JSONSerialization.jsonObject(with: json) as? [String: Any] ?? [:]
        if version < 2 { object["label"] = "tally" }
        return try JSONSerialization.data(withJSONObject: object)
    }

    static var durability: DurabilityConfiguration {
        var configuration = DurabilityConfiguration()
        configuration.stateType = String(reflecting: TallyV1.State.self)
        configuration.stateVersion = 2
        configuration.migrateState = { try migrateState($0, from: $1) }
        return configuration
    }

    /// Version 2; `addsTwice` is a deliberate change of behaviour (`tally/add` adds its amount twice) that the
    /// upgrade gate must catch.
    static func definition(addsTwice: Bool = false) -> StoreDefinition<State> {
        StoreDefinition(
            initialState: State(),
            reducer: AnyReducer(
                .on(Add.self) { (state: inout State, action: Add) in
                    state.count += addsTwice ? 2 * action.amount : action.amount
                    state.notes["add\(action.amount)", default: 0] += 1
                },
                .on(Set.self) { (state: inout State, action: Set) in state.count = action.count }),
            projections: Projections(), clientActions: [Add.self, Set.self])
    }
}

/// A session's typed store, from a restored one.
func tallyStore<State>(_ session: RestoredSession, _: State.Type) -> Store<State>? {
    let base = (session.store as? AnyProjectedStore)?.base ?? session.store
    return base as? Store<State>
}

/// One run of version 1 of the tally app on `storage` (opened by `open`): restores the stored sessions, creates those
/// of `ids` not stored yet, lets `body` dispatch, and stops cleanly (a snapshot of every session) or, with `crash`,
/// as a crash would (the last commits only in the log).
func runTallyV1(
    _ open: () throws -> any SessionStorage, ids: [String], snapshotEvery: Int = 1_000, crash: Bool = false,
    _ body: ([String: Store<TallyV1.State>]) throws -> Void
) async throws {
    var configuration = DurabilityConfiguration()
    configuration.snapshotEvery = snapshotEvery
    let storage = try open()
    let durable = DurableSessions(TallyV1.definition(), storage: storage, configuration: configuration)
    var stores: [String: Store<TallyV1.State>] = [:]
    if storage.isShared {
        for id in ids {
            if let restored = try durable.load(id, tokenHash: Hashing.tokenHash("token-\(id)")) {
                stores[id] = tallyStore(restored, TallyV1.State.self)
            }
        }
    } else {
        for restored in durable.restore() { stores[restored.record.id] = tallyStore(restored, TallyV1.State.self) }
    }
    for id in ids where stores[id] == nil { stores[id] = durable.makeTypedStore(for: newRecord(id)) }
    try body(stores)
    _ = await durable.durable()
    durable.stop(snapshotting: !crash, releasing: true)
}
