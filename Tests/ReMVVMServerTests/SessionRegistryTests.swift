@_spi(ReMVVMServer) import ReMVVM
import ReMVVMPersistence
import Synchronization
import Testing

@testable import ReMVVMServer

/// The registry spreads sessions over shards with locks of their own; these check that it still acts as one
/// map: the limit holds under concurrent creation, and counting, finding, listing and expiring see every shard.
@Suite("Session registry")
struct SessionRegistryTests {
    private static let minute: Int64 = 60_000_000_000

    private static func registry(limit: Int, ttl: Duration = .seconds(60)) -> SessionRegistry {
        let definition = TestApp.definition()
        return SessionRegistry(limit: limit, idempotencyLimit: 8, ttl: ttl) { definition.makeStore() }
    }

    /// Whether the session's store was closed (ended sessions close theirs).
    private static func isClosed(_ session: Session) -> Bool {
        do {
            _ = try session.store.dispatch([], views: .none, expectedVersion: nil, metadata: CommitMetadata())
            return false
        } catch {
            return error.isClosed
        }
    }

    @Test func theLimitHoldsWhenManyThreadsCreateAtOnce() async throws {
        let registry = Self.registry(limit: 300)
        let created = await withTaskGroup(of: [Session].self) { group in
            for _ in 0..<8 {
                group.addTask { (0..<100).compactMap { _ in registry.create() } }
            }
            return await group.reduce(into: []) { $0 += $1 }
        }
        #expect(created.count == 300)
        #expect(registry.count == 300)
        #expect(Set(registry.all.map(\.id)) == Set(created.map(\.id)))
        #expect(registry.create() == nil)
        for session in created {
            #expect(registry.find(id: session.id, token: Substring(session.token ?? "")) === session)
            #expect(registry.find(id: session.id, token: Substring(session.id)) == nil)
            #expect(registry.find(id: session.id, token: Substring((session.token ?? "").uppercased())) == nil)
            #expect(registry.find(id: session.id.uppercased(), token: Substring(session.token ?? "")) == nil)
            #expect(registry.find(id: session.id, token: nil) == nil)
        }
        let removed = try #require(registry.remove(id: created[0].id))
        #expect(Self.isClosed(removed))
        #expect(registry.count == 299)
        #expect(registry.find(id: created[0].id, token: Substring(created[0].token ?? "")) == nil)
        #expect(registry.create() != nil)
    }

    @Test func aRestoredSessionKnowsOnlyItsTokenHashAndStillAuthenticates() throws {
        let registry = Self.registry(limit: 10)
        let token = "0123456789abcdef0123456789abcdef"
        let id = "fedcba9876543210fedcba9876543210"
        let definition = TestApp.definition()
        let restored = try #require(
            Session(
                id: id, tokenHash: Hashing.tokenHash(token), epoch: "e",
                store: AnyProjectedStore(definition.makeStore()),
                idempotencyLimit: 8))
        registry.adopt(restored)
        #expect(restored.token == nil)
        #expect(registry.find(id: id, token: Substring("0123456789abcdef0123456789abcdee")) == nil)
        #expect(registry.find(id: id, token: Substring(token)) === restored)
        #expect(restored.token == token)
        #expect(registry.find(id: id, token: Substring("0123456789abcdef0123456789abcdee")) == nil)
        #expect(registry.find(id: id, token: Substring(token)) === restored)
    }

    @Test func expiringReachesEveryShard() {
        let registry = Self.registry(limit: 1_000)
        let start = Session.now()
        let sessions = (0..<200).compactMap { _ in registry.create() }
        #expect(sessions.count == 200)
        #expect(registry.expire(now: start + Self.minute / 2).expired == 0)
        #expect(registry.expire(now: start + 2 * Self.minute).expired == 200)
        #expect(registry.count == 0)
        #expect(registry.all.isEmpty)
        #expect(sessions.allSatisfy(Self.isClosed))
        #expect(registry.scheduledCount == 0)
    }

    /// Expiring reads only the sessions filed under seconds that have passed: with none due, every session stays
    /// filed where it was, however often it runs.
    @Test func expiringLooksOnlyAtSessionsWhoseTimeMayHaveCome() {
        let registry = Self.registry(limit: 1_000)
        let start = Session.now()
        let sessions = (0..<100).compactMap { _ in registry.create() }
        for second in 0..<30 {
            #expect(registry.expire(now: start + Int64(second) * 1_000_000_000).expired == 0)
        }
        #expect(registry.scheduledCount == sessions.count)
        #expect(registry.count == sessions.count)
    }

    /// A session used within its TTL is looked at when its first deadline comes, found in use and filed again
    /// for a TTL after that use; it ends a TTL after its last use, not its first.
    @Test func aSessionUsedWithinItsTTLIsFiledAgainAndEndsATTLAfterItsLastUse() throws {
        let registry = Self.registry(limit: 10)
        let start = Session.now()
        let used = try #require(registry.create())
        let unused = try #require(registry.create())
        used.touch(at: start + Self.minute / 2)
        #expect(registry.expire(now: start + Self.minute + 2_000_000_000).expired == 1)
        #expect(Self.isClosed(unused))
        #expect(!Self.isClosed(used))
        #expect(registry.scheduledCount == 1)  // Filed again, for a TTL after its use.
        #expect(registry.expire(now: start + Self.minute * 3 / 2 - 1_000_000_000).expired == 0)
        #expect(registry.expire(now: start + Self.minute * 3 / 2 + 2_000_000_000).expired == 1)
        #expect(Self.isClosed(used))
        #expect(registry.count == 0)
    }

    /// A session someone waits on is never idle, however long ago its last request was; it is looked at again a
    /// TTL later, and the end of the wait counts as a use.
    @Test func aSessionWithAParkedPollOutlivesItsTTL() throws {
        let registry = Self.registry(limit: 10)
        let start = Session.now()
        let session = try #require(registry.create())
        session.parkedPolls.add(1, ordering: .relaxed)
        #expect(registry.expire(now: start + 2 * Self.minute).expired == 0)
        #expect(registry.count == 1)
        // Filed a TTL after it was found waited on.
        #expect(registry.expire(now: start + 3 * Self.minute).expired == 0)
        session.touch(at: start + 3 * Self.minute + Self.minute / 2)  // The wait ended: a use.
        session.parkedPolls.subtract(1, ordering: .relaxed)
        #expect(registry.expire(now: start + 4 * Self.minute).expired == 0)
        #expect(registry.expire(now: start + 5 * Self.minute).expired == 1)
        #expect(Self.isClosed(session))
    }

    /// A session no request used after its creation ends after the unused-session TTL; one a request used is filed
    /// again and lasts the full TTL after that use.
    @Test func aNeverUsedSessionEndsAfterTheUnusedTTLAndAUsedOneAfterTheTTL() throws {
        let definition = TestApp.definition()
        let registry = SessionRegistry(limit: 10, idempotencyLimit: 8, ttl: .seconds(30 * 60), unusedTTL: .seconds(60))
        {
            definition.makeStore()
        }
        let start = Session.now()
        let unused = try #require(registry.create())
        let used = try #require(registry.create())
        used.touch(at: start + 1_000_000_000)
        #expect(registry.expire(now: start + Self.minute / 2) == (0, 0))
        #expect(registry.expire(now: start + Self.minute + 2_000_000_000) == (1, 1))
        #expect(Self.isClosed(unused))
        #expect(!Self.isClosed(used))
        #expect(registry.expire(now: start + 30 * Self.minute).expired == 0)
        #expect(registry.expire(now: start + 31 * Self.minute + 2_000_000_000) == (1, 0))
        #expect(Self.isClosed(used))
    }

    /// A deleted session's filing finds nothing when its second comes, and is dropped.
    @Test func aDeletedSessionsFilingIsDroppedWhenItsSecondComes() throws {
        let registry = Self.registry(limit: 10)
        let start = Session.now()
        let session = try #require(registry.create())
        #expect(registry.remove(id: session.id) === session)
        #expect(registry.scheduledCount == 1)
        #expect(registry.expire(now: start + 2 * Self.minute).expired == 0)
        #expect(registry.scheduledCount == 0)
    }

    @Test func adoptingCountsAndFilesEachIdOnce() throws {
        let registry = Self.registry(limit: 10)
        let session = try #require(registry.create())
        registry.adopt(session)
        #expect(registry.count == 1)
        #expect(registry.scheduledCount == 1)
    }
}
