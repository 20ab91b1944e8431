import ExampleApp
import Foundation
@_spi(ReMVVMServer) import ReMVVM
import Testing

@testable import ReMVVMPersistence

@Suite final class DurableSessionsTests {
    let storage = MemoryStorage()
    let log = LogCapture()
    /// Every writer a test started, stopped when it ends.
    private let opened = Opened()

    deinit {
        opened.stopAll()
    }

    func sessions(
        _ definition: StoreDefinition<AppState> = exampleApp(),
        configure: (inout DurabilityConfiguration) -> Void = { _ in }
    ) -> DurableSessions<AppState> {
        storage.reopen()
        var configuration = DurabilityConfiguration()
        configure(&configuration)
        let sessions = DurableSessions(definition, storage: storage, configuration: configuration, logger: log.logger)
        opened.add(sessions)
        return sessions
    }

    @Test func aRestoredSessionHasItsIdentityStateVersionAndViews() async throws {
        let first = sessions()
        let record = newRecord()
        let store = first.makeTypedStore(for: record)
        try store.dispatch(CounterAction.Increase())
        try store.dispatch(CounterAction.Set(value: 41))
        try store.dispatch(UserAction.Login(firstName: "Ada", lastName: "Lovelace"))
        try store.dispatch(ProfileAction.Show())
        #expect(await first.durable() == nil)
        let before = store.views(store.allViews)
        first.stop(snapshotting: false)

        let restored = sessions().restore()
        try #require(restored.count == 1)
        let again = try typed(restored[0])
        #expect(restored[0].record == record)
        #expect(again.versionedState.state == store.versionedState.state)
        #expect(again.version == 4)
        let after = again.views(again.allViews)
        #expect(try after.snapshots.map { try $0.json() } == before.snapshots.map { try $0.json() })
    }

    @Test func aKeyedCommitIsLoggedWithItsKeyAndRestoredWithItsAnswerTheLatestOnly() async throws {
        let first = sessions { $0.idempotencyKeysPerSession = 2 }
        let record = newRecord()
        let store = first.makeTypedStore(for: record)
        for index in 1...3 {
            let note = CommitMetadata.Idempotency(key: "k\(index)", digest: [UInt8(index)])
            try store.dispatch([CounterAction.Increase()], metadata: CommitMetadata(idempotency: note))
            first.recordAnswer(session: record.id, key: "k\(index)", answer: Array("answer \(index)".utf8))
        }
        // An effect's commit, or one without a key, carries none.
        try store.dispatch(CounterAction.Increase())
        #expect(await first.durable() == nil)
        first.stop(snapshotting: false)

        let restored = try #require(sessions { $0.idempotencyKeysPerSession = 2 }.restore().first)
        #expect(restored.keys.map(\.key) == ["k2", "k3"])
        #expect(restored.keys.map(\.version) == [2, 3])
        #expect(restored.keys.last?.answer == Data("answer 3".utf8))
        #expect(restored.keys.last?.digest == [3])
        #expect(restored.store.version == 4)
    }

    @Test func stateIsSnapshottedEveryNCommitsAndTheLogCompacted() async throws {
        let durable = sessions { $0.snapshotEvery = 5 }
        let record = newRecord()
        let store = durable.makeTypedStore(for: record)
        for _ in 1...12 {
            try store.dispatch(CounterAction.Increase())
            #expect(await durable.durable() == nil)
        }
        let stored = try #require(try storage.load(record.id))
        #expect(stored.snapshot?.version == 10)
        #expect(stored.log.map(\.version) == [11, 12])
        #expect(storage.logVersions(of: record.id) == [11, 12])
        #expect(durable.statistics.snapshots == 2)
        durable.shutdown()
    }

    @Test func aCleanShutdownSnapshotsEverySession() async throws {
        let durable = sessions()
        let records = (0..<3).map { newRecord("s\($0)") }
        for (index, record) in records.enumerated() {
            let store = durable.makeTypedStore(for: record)
            for _ in 0...index { try store.dispatch(CounterAction.Increase()) }
        }
        durable.shutdown()
        storage.reopen()
        for (index, record) in records.enumerated() {
            let stored = try #require(try storage.load(record.id))
            #expect(stored.snapshot?.version == UInt64(index + 1))
            #expect(stored.log.isEmpty)
            #expect(storage.logVersions(of: record.id).isEmpty)
        }
    }

    @Test func followUpsOfEffectsAreLoggedAndAReplayRunsNoEffect() async throws {
        let quotes = TestQuotes()
        let first = sessions(exampleApp(quotes: quotes))
        let record = newRecord()
        let store = first.makeTypedStore(for: record)
        try store.dispatch(QuoteAction.Load(category: "logs"))
        #expect(await eventually { store.version == 2 })
        #expect(await first.durable() == nil)
        first.stop(snapshotting: false)
        storage.reopen()
        #expect(try storage.load(record.id)?.log.map(\.version) == [1, 2])

        let restored = sessions(exampleApp(quotes: quotes)).restore()
        let again = try typed(try #require(restored.first))
        restored.first?.resume()
        #expect(again.state.quote.text == "A quote about logs.")
        #expect(again.version == 2)
        #expect(quotes.calls == 1)
    }

    @Test func theRestoreHookReloadsAQuoteThatWasStillLoading() async throws {
        let first = sessions(exampleApp(quotes: TestQuotes(hangs: true)))
        let record = newRecord()
        let store = first.makeTypedStore(for: record)
        try store.dispatch(QuoteAction.Load())
        #expect(await first.durable() == nil)
        first.stop(snapshotting: false)
        store.close()

        let quotes = TestQuotes()
        let second = sessions(exampleApp(quotes: quotes))
        let restored = try #require(second.restore().first)
        let again = try typed(restored)
        #expect(again.state.quote.loading)
        #expect(quotes.calls == 0)
        restored.resume()
        #expect(await eventually { again.state.quote.text != nil })
        #expect(quotes.calls == 1)
        #expect(await second.durable() == nil)
        #expect(try storage.load(record.id)?.log.map(\.version) == [1, 2, 3])
        second.shutdown()
    }

    @Test func anUndecodableStateIsSkippedWithAClearErrorAndKept() async throws {
        let bad = try storeUndecodableSession()
        let good = newRecord("good")
        try storage.create(good)
        let restored = sessions().restore()
        #expect(restored.map(\.record.id) == ["good"])
        let errors = log.messages()
        #expect(errors.count == 1)
        #expect(errors.first?.contains("cannot restore session \(bad)") == true)
        #expect(errors.first?.contains("no longer decodes: at 'counter'") == true)
        #expect(try storage.load(bad) != nil)
    }

    @Test func undecodableSessionsAreDeletedWhenAskedTo() async throws {
        let bad = try storeUndecodableSession()
        let restored = sessions { $0.dropUndecodableSessions = true }.restore()
        #expect(restored.isEmpty)
        #expect(log.messages().first?.contains("it was deleted") == true)
        #expect(try storage.load(bad) == nil)
    }

    enum Damage: String, CaseIterable {
        case newerSnapshotFormat, otherStateType, newerStateVersion, unknownAction, gapInLog, newerLogFormat
    }

    @Test(arguments: Damage.allCases)
    func damagedRecordsAreRefusedWithTheirReason(damage: Damage) async throws {
        let record = newRecord()
        try storage.create(record)
        let state = try JSONEncoder().encode(AppState())
        let type = String(reflecting: AppState.self)
        let increase = Data(#"[{"type":"counter/increase","payload":{}}]"#.utf8)
        let expected: String
        switch damage {
        case .newerSnapshotFormat:
            let snapshot = StoredSnapshot(version: 3, format: 3, stateType: type, stateVersion: 1, state: state)
            try storage.snapshot(snapshot, of: record.id)
            expected = "its snapshot has format 3, newer than this server reads (2)"
        case .otherStateType:
            try storage.snapshot(
                StoredSnapshot(version: 3, stateType: "Other.State", stateVersion: 1, state: state), of: record.id)
            expected = "its state is a 'Other.State', not this app's '\(type)'"
        case .newerStateVersion:
            try storage.snapshot(
                StoredSnapshot(version: 3, stateType: type, stateVersion: 2, state: state), of: record.id)
            expected = "its state has version 2, newer than this app's 1"
        case .unknownAction:
            try storage.append(
                [StoredCommit(version: 1, actions: Data(#"[{"type":"gone/away"}]"#.utf8))], to: record.id)
            expected = "its log entry for version 1 no longer decodes: action 0: unknown action type 'gone/away'"
        case .gapInLog:
            try storage.append(
                [StoredCommit(version: 1, actions: increase), StoredCommit(version: 3, actions: increase)],
                to: record.id)
            expected = "its action log jumps from version 1 to 3"
        case .newerLogFormat:
            try storage.append([StoredCommit(version: 1, format: 7, actions: increase)], to: record.id)
            expected = "its log entry for version 1 has format 7, newer than this server reads (1)"
        }
        #expect(sessions().restore().isEmpty)
        let error = try #require(log.messages().first)
        #expect(error.contains(expected), "\(error)")
    }

    @Test func olderStatesAreMigrated() async throws {
        let record = newRecord()
        try storage.create(record)
        var state = AppState()
        state.counter = 3
        let old = try stateJSON(state, replacing: "counter", with: nil, renaming: "count")
        let type = String(reflecting: AppState.self)
        try storage.snapshot(StoredSnapshot(version: 3, stateType: type, stateVersion: 1, state: old), of: record.id)
        let migrating = sessions {
            $0.stateVersion = 2
            $0.migrateState = { json, from in
                #expect(from == 1)
                var object = try JSONSerialization.jsonObject(with: json) as? [String: Any] ?? [:]
                object["counter"] = object.removeValue(forKey: "count")
                return try JSONSerialization.data(withJSONObject: object)
            }
        }
        let restored = try typed(try #require(migrating.restore().first))
        #expect(restored.state.counter == 3)
        #expect(restored.version == 3)
    }

    @Test func endedSessionsAreDeletedFromStorage() async throws {
        let durable = sessions()
        let record = newRecord()
        let store = durable.makeTypedStore(for: record)
        try store.dispatch(CounterAction.Increase())
        #expect(await durable.durable() == nil)
        #expect(try storage.load(record.id) != nil)
        durable.remove(session: record.id)
        #expect(await durable.durable() == nil)
        #expect(try storage.load(record.id) == nil)
        durable.shutdown()
    }

    /// Stores a session whose snapshot's `counter` is a string; returns its id.
    private func storeUndecodableSession() throws -> String {
        let record = newRecord("bad")
        try storage.create(record)
        let state = try stateJSON(AppState(), replacing: "counter", with: "many")
        let type = String(reflecting: AppState.self)
        try storage.snapshot(StoredSnapshot(version: 5, stateType: type, stateVersion: 1, state: state), of: record.id)
        return record.id
    }
}
