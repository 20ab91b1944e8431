@_spi(ReMVVMServer) import ReMVVM
import Testing

@testable import ReMVVMServer

/// The registry's flat table of sessions, against a dictionary doing the same.
@Suite("Session table")
struct SessionTableTests {
    private static let definition = TestApp.definition()

    /// A session whose id is `high` and `low` as 32 hex digits.
    private static func session(high: UInt64, low: UInt64) throws -> Session {
        let id = hex(high) + hex(low)
        return try #require(
            Session(id: id, token: id, epoch: "e", store: definition.makeStore(), idempotencyLimit: 1))
    }

    private static func hex(_ word: UInt64) -> String {
        let digits = String(word, radix: 16)
        return String(repeating: "0", count: 16 - digits.count) + digits
    }

    @Test func itFindsWhatADictionaryFindsThroughInsertionsReplacementsAndRemovals() throws {
        // Few distinct low words: many keys share a home slot, so runs are long, cross the end of the array and
        // are closed up by removals, which is where a linear-probing table goes wrong if it does.
        var sessions: [Session] = []
        for high in 0..<40 {
            for low in 0..<6 { sessions.append(try Self.session(high: UInt64(high) * 7_919, low: UInt64(low))) }
        }
        var table = SessionTable()
        var model: [SessionKey: Session] = [:]
        var generator = Congruential(seed: 0x5EED)
        for step in 0..<20_000 {
            let session = sessions[Int(generator.next() % UInt64(sessions.count))]
            switch generator.next() % 3 {
            case 0:
                #expect(
                    table.updateValue(session, forKey: session.key) === model.updateValue(session, forKey: session.key))
            case 1:
                #expect(table.removeValue(forKey: session.key) === model.removeValue(forKey: session.key))
            default:
                #expect(table[session.key] === model[session.key], "step \(step)")
            }
            #expect(table.count == model.count)
        }
        for session in sessions { #expect(table[session.key] === model[session.key]) }
        #expect(Set(table.values.map(\.id)) == Set(model.values.map(\.id)))
    }

    @Test func itGrowsAndEmptiesAgain() throws {
        var table = SessionTable()
        var generator = Congruential(seed: 42)
        let sessions = try (0..<5_000).map { _ in try Self.session(high: generator.next(), low: generator.next()) }
        for session in sessions { #expect(table.updateValue(session, forKey: session.key) == nil) }
        #expect(table.count == sessions.count)
        for session in sessions { #expect(table[session.key] === session) }
        let unknown = try Self.session(high: 1, low: 2)
        #expect(table[unknown.key] == nil)
        #expect(table.removeValue(forKey: unknown.key) == nil)
        for session in sessions.reversed() { #expect(table.removeValue(forKey: session.key) === session) }
        #expect(table.count == 0)
        #expect(table.values.isEmpty)
        for session in sessions.prefix(10) { #expect(table[session.key] == nil) }
    }

    /// A small seeded generator (Knuth's MMIX linear congruential one, its high bits), so a failure replays.
    private struct Congruential {
        var state: UInt64

        init(seed: UInt64) { state = seed }

        mutating func next() -> UInt64 {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return state >> 16 | state << 48
        }
    }
}
