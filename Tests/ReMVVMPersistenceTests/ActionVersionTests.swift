import Foundation
@_spi(ReMVVMServer) import ReMVVM
import ReMVVMSQLite
import Testing

@testable import ReMVVMPersistence

/// Actions that outlive their types: a payload logged by version 1 of an action is read by version 2 through its
/// migration, and a build refuses, as needing a newer build, what a newer one wrote.
@Suite final class ActionVersionTests {
    let directory = FileManager.default.temporaryDirectory
        .appendingPathComponent("remvvm-versions-\(UUID().uuidString)").path

    deinit {
        try? FileManager.default.removeItem(atPath: directory)
    }

    func open() throws -> any SessionStorage { try SQLiteSessionStorage(directory: directory) }

    @Test func aMigrationTurnsAnOldPayloadIntoTheNewType() throws {
        let migrated = try TallyV2.Set.migrate(payload: Data(#"{"value":3}"#.utf8), from: 1)
        #expect(migrated == TallyV2.Set(count: 3))
        #expect(throws: DecodingError.self) { try TallyV2.Set.migrate(payload: Data(#"{"count":3}"#.utf8), from: 1) }
    }

    @Test func aTypeWithoutAMigrationRefusesOlderPayloads() {
        #expect(TallyV1.Set.wireVersion == 1)
        #expect(throws: ActionMigrationError.self) { try TallyV1.Set.migrate(payload: Data("{}".utf8), from: 0) }
    }

    @Test func theRegistryReadsEachActionInTheVersionItWasWrittenAt() throws {
        let registry = TallyV2.definition().actions
        #expect(registry.versionedTypes == ["tally/set": 2])
        let entry = Data(
            #"[{"type":"tally/add","payload":{"amount":2}},{"type":"tally/set","payload":{"value":9}}]"#.utf8)
        let actions = try registry.decodeActions(from: entry, writtenAt: [:])
        #expect((actions[1] as? TallyV2.Set) == TallyV2.Set(count: 9))
        let current = Data(#"[{"type":"tally/set","payload":{"count":4}}]"#.utf8)
        #expect(
            (try registry.decodeActions(from: current, writtenAt: ["tally/set": 2]).first as? TallyV2.Set)?.count == 4)
        #expect {
            try registry.decodeActions(from: current, writtenAt: ["tally/set": 3])
        } throws: { error in
            (error as? ActionMigrationError)?.isNewer == true
        }
    }

    @Test func aSessionLoggedWithVersion1OfAnActionIsRestoredByVersion2() async throws {
        // One session snapshotted at a clean stop and logged after it, one only logged (a crash).
        try await runTallyV1(open, ids: ["snapshotted"]) { stores in
            for store in stores.values { try store.dispatch(TallyV1.Add(amount: 2)) }
        }
        try await runTallyV1(open, ids: ["snapshotted", "logged"], crash: true) { stores in
            for store in stores.values {
                if store.version == 0 { try store.dispatch(TallyV1.Add(amount: 2)) }
                try store.dispatch(TallyV1.Set(value: 7))
                try store.dispatch(TallyV1.Add(amount: 1))
            }
        }
        let storage = try open()
        let durable = DurableSessions(TallyV2.definition(), storage: storage, configuration: TallyV2.durability)
        let restored = durable.restore()
        #expect(restored.count == 2)
        for session in restored {
            let store = try #require(tallyStore(session, TallyV2.State.self))
            #expect(store.state == TallyV2.State(count: 8, notes: ["add2": 1, "add1": 1], label: "tally"))
            #expect(store.version == 3)
        }
        durable.stop(snapshotting: false)
    }

    @Test func theLogRecordsTheVersionEachActionWasWrittenAt() async throws {
        let storage = try open()
        let durable = DurableSessions(TallyV2.definition(), storage: storage, configuration: TallyV2.durability)
        let store = durable.makeTypedStore(for: newRecord("a"))
        try store.dispatch(TallyV2.Add(amount: 1))
        try store.dispatch(TallyV2.Set(count: 5))
        #expect(await durable.durable() == nil)
        let log = try #require(try storage.load("a")).log
        #expect(log.map(\.versions) == [[:], ["tally/set": 2]])
        durable.stop(snapshotting: false)
    }

    @Test func aLogEntryOfANewerActionVersionIsRefusedAsNeedingANewerBuild() async throws {
        let storage = try open()
        let newer = DurableSessions(TallyV2.definition(), storage: storage, configuration: TallyV2.durability)
        let store = newer.makeTypedStore(for: newRecord("a"))
        try store.dispatch(TallyV2.Set(count: 5))
        #expect(await newer.durable() == nil)
        let stored = try #require(try storage.load("a"))
        newer.stop(snapshotting: false)

        let older = SessionCodec(definition: TallyV1.definition(), configuration: DurabilityConfiguration())
        #expect {
            _ = try older.rebuild(stored, with: TallyV1.definition())
        } throws: { error in
            (error as? RestoreError)?.needsNewerBuild == true
        }
    }
}
