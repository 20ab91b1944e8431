import Foundation
import Logging
@_spi(ReMVVMServer) import ReMVVM
import Synchronization
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
            record: SessionRecord(id: "s", tokenHash: "h", epoch: "e"),
            snapshot: { StoredSnapshot(version: 99, stateType: "T", stateVersion: 1, state: Data()) },
            snapshotVersion: snapshotVersion, sinceSnapshot: 0, durable: DurableVersion())
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
            case .remember(_, let key): "remember \(key.key) at \(key.version)"
            case .answer(_, let key, _): "answer \(key)"
            case .forgetKeys(_, let keeping): "keep \(keeping) keys"
            case .touch: "touch"
            case .publish(_, let publication): "publish to \(publication.topic)"
            }
        }
    }

    @Test(arguments: [
        (every: 5, versions: 1...4 as ClosedRange<UInt64>, expected: ["append [1, 2, 3, 4]"]),
        (every: 5, versions: 1...5, expected: ["append [1, 2, 3, 4, 5]", "snapshot 99", "keep 256 keys"]),
        (every: 1, versions: 1...1, expected: ["append [1]", "snapshot 99", "keep 256 keys"]),
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
        #expect(kinds(ledger.plan([])) == ["delete", "create", "snapshot 99", "keep 256 keys"])
        #expect(!ledger.needsRepair)
    }

    @Test func aLostSessionIsDroppedFromThePlanAndItsRepairAndNeverWrittenAgain() {
        var ledger = ledger(every: 100)
        let other = WriterSession(
            record: SessionRecord(id: "t", tokenHash: "h", epoch: "e"),
            snapshot: { StoredSnapshot(version: 7, stateType: "T", stateVersion: 1, state: Data()) },
            snapshotVersion: 0, sinceSnapshot: 0, durable: DurableVersion())
        _ = ledger.plan([.register(other, create: nil)])
        // A write failed (the database was down): both sessions wait for their repair.
        let down = ledger.plan(
            commits(1...1) + [
                .commit(session: "t", record: CommitRecord(version: 1, actions: [Bump()]))
            ])
        ledger.failed(down)
        // The repair is refused for `s`: another node took it over meanwhile.
        var repair = ledger.plan([])
        #expect(kinds(repair) == ["create", "snapshot 99", "keep 256 keys", "create", "snapshot 7", "keep 256 keys"])
        #expect(ledger.drop(["s"], from: &repair) == ["s"])
        #expect(repair.changes.allSatisfy { $0.session == "t" })
        #expect(ledger.isLost("s"))
        #expect(!ledger.needsRepair)
        // Its later commits and deletion are not written (the writer fails its barriers).
        let later = ledger.plan(commits(2...2) + [.remove(session: "s")])
        #expect(later.changes.isEmpty)
        // Taken back (loaded again by this node), it is written again.
        let session = WriterSession(
            record: SessionRecord(id: "s", tokenHash: "h", epoch: "e"),
            snapshot: { StoredSnapshot(version: 99, stateType: "T", stateVersion: 1, state: Data()) },
            snapshotVersion: 5, sinceSnapshot: 0, durable: DurableVersion())
        #expect(kinds(ledger.plan([.register(session, create: nil)] + commits(6...6))) == ["append [6]"])
        #expect(!ledger.isLost("s"))
    }

    @Test func aKeyIsRememberedInTheTransactionOfItsCommitAndItsAnswerAfter() {
        var ledger = ledger(every: 100)
        let note = CommitMetadata.Idempotency(key: "k", digest: [1, 2])
        let record = CommitRecord(version: 1, actions: [Bump()], metadata: CommitMetadata(idempotency: note))
        let plan = ledger.plan([
            .commit(session: "s", record: record),
            .answer(session: "s", key: "k", answer: Data("{}".utf8)),
        ])
        #expect(kinds(plan) == ["append [1]", "remember k at 1", "answer k"])
    }

    @Test func keysOfAFailedPlanAreWrittenAgainWithTheRepair() {
        var ledger = ledger(every: 100)
        let note = CommitMetadata.Idempotency(key: "k", digest: [1, 2])
        let failed = ledger.plan([
            .commit(
                session: "s", record: CommitRecord(version: 1, actions: [], metadata: CommitMetadata(idempotency: note))
            )
        ])
        ledger.failed(failed)
        #expect(kinds(ledger.plan([])) == ["remember k at 1", "create", "snapshot 99", "keep 256 keys"])
    }

    @Test func aLostSessionIsForgottenOnceNoRequestCanAskAboutItAnyMore() {
        var ledger = ledger(every: 100)
        let clock = Clock()
        ledger.clock = { clock.now }
        clock.now = 1_000
        var plan = ledger.plan(commits(1...1))
        #expect(ledger.drop(["s"], from: &plan) == ["s"])
        #expect(ledger.isLost("s"))
        // Within the retention it stays: a late barrier of the old copy still fails.
        ledger.pruneLost(now: 1_000 + WriterLedger.lostRetention)
        #expect(ledger.isLost("s"))
        // After it, the set no longer grows with every session another node ever took.
        ledger.pruneLost(now: 1_001 + WriterLedger.lostRetention)
        #expect(!ledger.isLost("s"))
        #expect(ledger.lost.isEmpty)
    }

    @Test func aTouchMovesTheStoredExpiryOfATrackedSessionAndIsWrittenAgainAfterAFailure() {
        var ledger = ledger(every: 100)
        let later = Date(timeIntervalSince1970: 2_000_000_000)
        let plan = ledger.plan([.touch(session: "s", expires: later), .touch(session: "unknown", expires: later)])
        #expect(kinds(plan) == ["touch"])
        ledger.failed(plan)
        // The repair of a failed touch is the touch again (the session's log had no hole).
        #expect(kinds(ledger.plan([])) == ["touch"])
        // A repair that writes the identity again writes the latest expiry.
        ledger.failed(ledger.plan(commits(1...1)))
        let repair = ledger.plan([])
        let created = repair.changes.compactMap { change -> Date? in
            if case .create(let record) = change { return record.expires }
            return nil
        }
        #expect(created == [later])
    }

    /// The outbox: a commit's topic messages go in its transaction, after its log rows and key.
    @Test func aCommitsPublicationsAreWrittenInItsTransactionAndAgainAfterAFailure() {
        var ledger = ledger(every: 100)
        let note = CommitMetadata.Idempotency(key: "k", digest: [1, 2])
        let message = TopicPublication(topic: "room", action: Bump(), encoded: Data("{}".utf8))
        let record = CommitRecord(
            version: 1, actions: [Bump()], publications: [message, message], metadata: CommitMetadata(idempotency: note)
        )
        let failed = ledger.plan([.commit(session: "s", record: record)])
        #expect(kinds(failed) == ["append [1]", "remember k at 1", "publish to room", "publish to room"])
        #expect(failed.publications.count == 2)
        // The transaction failed: the commit is in memory (and in the repair's snapshot), so its messages go too.
        ledger.failed(failed)
        #expect(ledger.needsRepair)
        let repair = ledger.plan([])
        #expect(
            kinds(repair) == [
                "remember k at 1", "publish to room", "publish to room", "create", "snapshot 99", "keep 256 keys",
            ])
        #expect(!ledger.needsRepair)
    }

    @Test func theMessagesOfASessionLostToAnotherNodeAreDroppedWithItsCommits() {
        var ledger = ledger(every: 100)
        let message = TopicPublication(topic: "room", action: Bump(), encoded: Data("{}".utf8))
        var plan = ledger.plan([
            .commit(session: "s", record: CommitRecord(version: 1, actions: [Bump()], publications: [message]))
        ])
        #expect(ledger.drop(["s"], from: &plan) == ["s"])
        #expect(plan.changes.isEmpty)
        #expect(plan.publications.isEmpty)
    }

    /// A hand-moved clock for the ledger.
    final class Clock: Sendable {
        private let time = Mutex<UInt64>(0)
        var now: UInt64 {
            get { time.withLock { $0 } }
            set { time.withLock { $0 = newValue } }
        }
    }
}
