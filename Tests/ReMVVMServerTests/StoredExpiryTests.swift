import Foundation
@_spi(ReMVVMServer) import ReMVVM
import ReMVVMPersistence
import Synchronization
import Testing

@testable import ReMVVMServer

/// The stored copy of a durable session outlives the session in memory, and is written rarely: time from the
/// tests, not the machine.
@Suite("Stored expiry")
struct StoredExpiryTests {
    private static let second: Int64 = 1_000_000_000

    /// The expiries queued for storage, by session.
    final class Touches: Sendable {
        private let queued = Mutex<[(id: String, expires: Date)]>([])
        var all: [(id: String, expires: Date)] { queued.withLock { $0 } }
        func add(_ id: String, _ expires: Date) { queued.withLock { $0.append((id, expires)) } }
    }

    /// What a registry reported: the records of the sessions it made, and the sessions that ended.
    final class Reports: Sendable {
        private let made = Mutex<[SessionRecord]>([])
        private let gone = Mutex<[String]>([])
        var records: [SessionRecord] { made.withLock { $0 } }
        var ended: [String] { gone.withLock { $0 } }
        func add(_ record: SessionRecord) { made.withLock { $0.append(record) } }
        func end(_ id: String) { gone.withLock { $0.append(id) } }
    }

    /// A registry with an 8 s TTL (its stored expiries run 2 s ahead) whose records and touches the test sees.
    private static func registry(touches: Touches, reports: Reports = Reports()) -> SessionRegistry {
        let definition = TestApp.definition()
        return SessionRegistry(
            limit: 10, idempotencyLimit: 8, ttl: .seconds(8),
            makeStore: { record, _ in
                reports.add(record)
                return AnyProjectedStore(definition.makeStore())
            },
            onEnd: { session in reports.end(session.id) },
            storedExpiry: StoredExpiry(ttl: 8 * second) { id, expires in touches.add(id, expires) })
    }

    /// Monotonic `time` on the wall clock, to compare with what was queued (a millisecond either way).
    private static func isAbout(_ date: Date, _ time: Int64) -> Bool {
        abs(date.timeIntervalSince(StoredExpiry.date(ofMonotonic: time))) < 0.01
    }

    @Test func aNewSessionIsStoredWithItsExpiryAMarginAfterItsTTL() throws {
        let touches = Touches()
        let reports = Reports()
        let registry = Self.registry(touches: touches, reports: reports)
        let session = try #require(registry.create())
        let record = try #require(reports.records.first)
        #expect(Self.isAbout(record.expires, session.lastUsed + 10 * Self.second))
        #expect(touches.all.isEmpty)
    }

    @Test func useMovesTheStoredExpiryOnlyOnceItIsLessThanATTLAway() throws {
        let touches = Touches()
        let registry = Self.registry(touches: touches)
        let session = try #require(registry.create())
        let start = session.lastUsed
        // Stored until start + 10 s: uses until start + 2 s find it a TTL away or more.
        let millisecond: Int64 = 1_000_000
        session.touch(at: start + Self.second)
        session.touch(at: start + 2 * Self.second - millisecond)
        #expect(touches.all.isEmpty)
        session.touch(at: start + 2 * Self.second + millisecond)
        #expect(touches.all.count == 1)
        #expect(touches.all.first?.id == session.id)
        #expect(Self.isAbout(try #require(touches.all.first).expires, start + 12 * Self.second + millisecond))
        // At most one write per margin, however many requests.
        for step in 0..<100 { session.touch(at: start + 3 * Self.second + Int64(step) * 10 * millisecond) }
        #expect(touches.all.count == 1)
        session.touch(at: start + 4 * Self.second + 2 * millisecond)
        #expect(touches.all.count == 2)
    }

    @Test func aSessionSomeoneWaitsOnIsKeptStoredWhileNothingElseUsesIt() throws {
        let touches = Touches()
        let reports = Reports()
        let registry = Self.registry(touches: touches, reports: reports)
        let session = try #require(registry.create())
        let start = session.lastUsed
        _ = session.openStreams.add(1, ordering: .relaxed)  // An event stream, for an hour.
        for minute in 1...60 {
            let now = start + Int64(minute) * 60 * Self.second
            #expect(registry.expire(now: now).expired == 0)
            // The stored copy always outlives the next look.
            let last = try #require(touches.all.last)
            #expect(last.expires > StoredExpiry.date(ofMonotonic: now + 8 * Self.second))
        }
        _ = session.openStreams.subtract(1, ordering: .relaxed)
        #expect(registry.expire(now: start + 62 * 60 * Self.second).expired == 1)
        #expect(reports.ended == [session.id])
    }

    @Test func aRestoredSessionExpiresInMemoryWhenItsStoredCopyWould() throws {
        let touches = Touches()
        let registry = Self.registry(touches: touches)
        let keeper = try #require(registry.storedExpiry)
        let definition = TestApp.definition()
        let session = try #require(
            Session(
                id: SecureToken.make(), tokenHash: "h", epoch: "e", store: AnyProjectedStore(definition.makeStore()),
                idempotencyLimit: 8))
        let now = Session.now()
        keeper.resume(session, storedUntil: StoredExpiry.date(ofMonotonic: now + 3 * Self.second))
        registry.adopt(session)
        #expect(registry.expire(now: now + 2 * Self.second).expired == 0)
        #expect(registry.expire(now: now + 5 * Self.second).expired == 1)
        #expect(touches.all.isEmpty)
    }
}
