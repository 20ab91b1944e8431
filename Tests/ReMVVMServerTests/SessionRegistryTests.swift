import ReMVVM
import Synchronization
import Testing

@testable import ReMVVMServer

/// The registry spreads sessions over shards with locks of their own; these check that it still acts as one
/// map: the limit holds under concurrent creation, and counting, finding, listing and expiring see every shard.
@Suite("Session registry")
struct SessionRegistryTests {
    private static func registry(limit: Int) -> SessionRegistry {
        let definition = TestApp.definition()
        return SessionRegistry(limit: limit, idempotencyLimit: 8) { definition.makeStore() }
    }

    /// Whether the session's store was closed (ended sessions close theirs).
    private static func isClosed(_ session: Session) -> Bool {
        do {
            _ = try session.store.dispatch([], views: .none, expectedVersion: nil)
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
            #expect(registry.find(id: session.id, token: Substring(session.token)) === session)
            #expect(registry.find(id: session.id, token: Substring(session.id)) == nil)
            #expect(registry.find(id: session.id, token: Substring(session.token.uppercased())) == nil)
            #expect(registry.find(id: session.id.uppercased(), token: Substring(session.token)) == nil)
            #expect(registry.find(id: session.id, token: nil) == nil)
        }
        let removed = try #require(registry.remove(id: created[0].id))
        #expect(Self.isClosed(removed))
        #expect(registry.count == 299)
        #expect(registry.find(id: created[0].id, token: Substring(created[0].token)) == nil)
        #expect(registry.create() != nil)
    }

    @Test func expiringReachesEveryShard() {
        let registry = Self.registry(limit: 1_000)
        let sessions = (0..<200).compactMap { _ in registry.create() }
        #expect(sessions.count == 200)
        #expect(registry.expire(idleLongerThan: .seconds(3_600)) == 0)
        #expect(registry.expire(idleLongerThan: .zero) == 200)
        #expect(registry.count == 0)
        #expect(registry.all.isEmpty)
        #expect(sessions.allSatisfy(Self.isClosed))
    }

    @Test func adoptingCountsEachIdOnce() throws {
        let registry = Self.registry(limit: 10)
        let session = try #require(registry.create())
        registry.adopt(session)
        #expect(registry.count == 1)
    }
}
