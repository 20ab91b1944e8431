import Foundation
import GRDB
@_spi(ReMVVMServer) import ReMVVM
import ReMVVMSQLite
import Testing

@testable import ReMVVMPersistence

/// The replay gate on real SQLite files written by version 1 of the tally app: version 2 passes; version 2 with a
/// changed reducer fails, naming the first divergent action of the first divergent session.
@Suite final class UpgradeGateTests {
    let directory = FileManager.default.temporaryDirectory
        .appendingPathComponent("remvvm-gate-\(UUID().uuidString)").path
    var path: String { directory + "/" + SQLiteSessionStorage.fileName }

    deinit {
        try? FileManager.default.removeItem(atPath: directory)
    }

    func open() throws -> any SessionStorage { try SQLiteSessionStorage(directory: directory) }

    /// Two runs of version 1, each ended by a clean stop (a snapshot of every session): "sets" only ever sets;
    /// "adds" sets, then, after the restart, adds and sets; "recent" is created in the second run. Each ends with
    /// its latest snapshot, the one before it (none for "recent") and the log since that one.
    func writeVersion1() async throws {
        try await runTallyV1(open, ids: ["sets", "adds"]) { stores in
            try stores["sets"]?.dispatch(TallyV1.Set(value: 3))
            try stores["adds"]?.dispatch(TallyV1.Set(value: 10))
        }
        try await runTallyV1(open, ids: ["sets", "adds", "recent"]) { stores in
            try stores["sets"]?.dispatch(TallyV1.Set(value: 4))
            try stores["adds"]?.dispatch(TallyV1.Add(amount: 5))
            try stores["adds"]?.dispatch(TallyV1.Set(value: 20))
            try stores["adds"]?.dispatch(TallyV1.Add(amount: 1))
            try stores["recent"]?.dispatch(TallyV1.Add(amount: 2))
        }
    }

    @Test func snapshotsCarryTheDigestOfTheirStateAndTheOneBeforeIsKeptWithTheLogSinceIt() async throws {
        try await writeVersion1()
        let history = try #require(try SQLiteSessionHistory(path: path).history("adds"))
        #expect(history.previous?.version == 1)
        #expect(history.latest?.version == 4)
        #expect(history.log.map(\.version) == [2, 3, 4])
        let latest = try #require(history.latest)
        #expect(latest.digest == Hashing.sha256([UInt8](latest.state)))
        // A restore still reads the latest snapshot and the log after it only.
        let storage = try open()
        #expect(try storage.load("adds")?.log.isEmpty == true)
        storage.close()
    }

    @Test func aDatabaseWrittenByVersion1PassesForVersion2() async throws {
        try await writeVersion1()
        let source = try SQLiteSessionHistory(path: path)
        defer { source.close() }
        let report = try UpgradeGate(TallyV2.definition(), durability: TallyV2.durability).run(source)
        #expect(report.passed, "\(report.text)")
        #expect(report.stored == 3)
        #expect(report.matched == 3)
        #expect(report.replayed == 1 + 3 + 1)
        #expect(report.text.hasPrefix("passed: 3 of 3 sessions"))
    }

    @Test func aChangedReducerFailsNamingTheFirstDivergentActionOfTheFirstDivergentSession() async throws {
        try await writeVersion1()
        let source = try SQLiteSessionHistory(path: path)
        defer { source.close() }
        let gate = UpgradeGate(TallyV2.definition(addsTwice: true), durability: TallyV2.durability)
        let report = try gate.run(source)
        #expect(!report.passed)
        #expect(report.matched == 1)
        #expect(report.divergent == 2)
        let first = try #require(report.failures.first)
        #expect(first.session == "adds")
        #expect(first.outcome == .divergent)
        #expect(first.version == 2)
        #expect(first.action == "tally/add")
        #expect(first.checkedAt == 4)
        #expect(report.text.contains("divergent session adds: first at version 2 ('tally/add')"), "\(report.text)")
        let json = try JSONDecoder().decode(UpgradeReport.self, from: Data(report.json.utf8))
        #expect(json == report)
        #expect(report.json.contains(#""passed":false"#))
    }

    @Test func anActionThisBuildCannotReadIsUndecodableAndNamed() async throws {
        try await writeVersion1()
        // Version 1 again, but with `tally/set` raised to version 2 and no migration written.
        struct Set: StoreAction {
            static let wireName = "tally/set"
            static let wireVersion = 2
            var count: Int
        }
        let definition = StoreDefinition(
            initialState: TallyV1.State(),
            reducer: AnyReducer(
                .on(TallyV1.Add.self) { (state: inout TallyV1.State, action: TallyV1.Add) in
                    state.count += action.amount
                    state.notes["add\(action.amount)", default: 0] += 1
                },
                .on(Set.self) { (state: inout TallyV1.State, action: Set) in state.count = action.count }),
            projections: Projections())
        let source = try SQLiteSessionHistory(path: path)
        defer { source.close() }
        let report = try UpgradeGate(definition).run(source)
        #expect(report.undecodable == 2)
        let first = try #require(report.failures.first)
        // In the stored order: "adds" (its log since version 1 sets at version 3), "recent", "sets".
        #expect(first.session == "adds")
        #expect(first.action == "tally/set")
        #expect(first.version == 3)
        #expect(first.detail?.contains("declares no migration") == true, "\(first.detail ?? "")")
    }

    @Test func theGateOnlyReadsAndSamplesEvenly() async throws {
        try await writeVersion1()
        let before = try Data(contentsOf: URL(fileURLWithPath: path))
        let source = try SQLiteSessionHistory(path: path)
        let report = try UpgradeGate(TallyV2.definition(), durability: TallyV2.durability).run(source, sample: 2)
        source.close()
        #expect(report.checked == 2)
        #expect(report.stored == 3)
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == before)
        #expect(UpgradeGate<TallyV2.State>.sample(["a", "b", "c", "d"], count: 2) == ["a", "c"])
    }

    @Test func aFileOfSchema6IsReadWithItsSessionsUnchecked() async throws {
        try await writeVersion1()
        // What a file of the previous schema holds: no digests, no previous snapshots, the log compacted.
        let database = try DatabaseQueue(path: path)
        try await database.write { db in
            try db.execute(sql: "DROP TABLE previous_snapshots")
            try db.execute(sql: "DELETE FROM log")
            try db.execute(sql: "UPDATE snapshots SET digest = NULL")
            try db.execute(sql: "PRAGMA user_version = 6")
        }
        try database.close()
        let source = try SQLiteSessionHistory(path: path)
        defer { source.close() }
        let report = try UpgradeGate(TallyV2.definition(), durability: TallyV2.durability).run(source)
        #expect(report.passed)
        #expect(report.unchecked == 3)
    }
}
