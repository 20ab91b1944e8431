import Foundation
import Logging
@_spi(ReMVVMServer) import ReMVVM
import Testing

@testable import ReMVVMPersistence

@Suite struct WriterLedgerTests {
    struct Bump: StoreAction { static let wireName = "test/bump" }

    /// A ledger with one session `s` whose snapshots report `snapshotVersion`.
    func ledger(every: Int, snapshotVersion: UInt64 = 0) -> WriterLedger {
        var ledger = WriterLedger(snapshotEvery: every, logger: Logger(label: "test")) { record in
            StoredCommit(version: record.version, actions: Data("[]".utf8))
        }
        let session = WriterSession(
            record: SessionRecord(id: "s", token: "t", epoch: "e"),
            snapshot: { StoredSnapshot(version: 99, stateType: "T", stateVersion: 1, state: Data()) },
            snapshotVersion: snapshotVersion, sinceSnapshot: 0)
        _ = ledger.plan([.register(session, create: nil)])
        return ledger
    }

    func commits(_ versions: ClosedRange<UInt64>) -> [WriterItem] {
        versions.map { .commit(session: "s", record: CommitRecord(version: $0, actions: [Bump()])) }
    }

    /// The kinds of changes in a plan, as short names.
    func kinds(_ plan: WriterLedger.Plan) -> [String] {
        plan.changes.map { change in
            switch change {
            case .create: "create"
            case .append(_, let commits): "append \(commits.map(\.version))"
            case .snapshot(_, let snapshot): "snapshot \(snapshot.version)"
            case .delete: "delete"
            }
        }
    }

    @Test(arguments: [
        (every: 5, versions: 1...4 as ClosedRange<UInt64>, expected: ["append [1, 2, 3, 4]"]),
        (every: 5, versions: 1...5, expected: ["append [1, 2, 3, 4, 5]", "snapshot 99"]),
        (every: 1, versions: 1...1, expected: ["append [1]", "snapshot 99"]),
    ])
    func commitsOfOneSessionShareOneAppendAndSnapshotAfterN(
        every: Int, versions: ClosedRange<UInt64>, expected: [String]
    ) {
        var ledger = ledger(every: every)
        #expect(kinds(ledger.plan(commits(versions))) == expected)
    }

    @Test func commitsASnapshotCoversAreNotLogged() {
        var ledger = ledger(every: 100, snapshotVersion: 10)
        #expect(kinds(ledger.plan(commits(9...12))) == ["append [11, 12]"])
    }

    @Test func aRemovedSessionIsDeletedAndNoLongerLogged() {
        var ledger = ledger(every: 100)
        #expect(
            kinds(ledger.plan(commits(1...1) + [.remove(session: "s")] + commits(2...2))) == ["append [1]", "delete"])
    }

    @Test func aFailedPlanIsRepairedWithTheIdentityAndASnapshot() {
        var ledger = ledger(every: 100)
        let failed = ledger.plan(commits(1...2) + [.remove(session: "gone")])
        ledger.failed(failed)
        #expect(ledger.needsRepair)
        #expect(kinds(ledger.plan([])) == ["delete", "create", "snapshot 99"])
        #expect(!ledger.needsRepair)
    }
}
