import Testing

@testable import MicroHTTP

/// The slot table behind the parked registry, the disconnect watcher and the deadline timer.
@Suite("SlotTable")
struct SlotTableTests {
    @Test func anElementIsFoundByItsHandleOnce() {
        var table = SlotTable<String>()
        let first = table.insert("first")
        let second = table.insert("second")
        #expect(first != second)
        #expect(table.count == 2)
        #expect(table.remove(second) == "second")
        #expect(table.remove(second) == nil)
        #expect(table.remove(first) == "first")
        #expect(table.isEmpty)
    }

    @Test func noHandleIsZero() {
        // The disconnect watcher's wake-up uses epoll token 0: no client may get it, whichever slot it reuses.
        var table = SlotTable<Int>()
        for round in 0..<100 {
            let handles = (0..<10).map { table.insert($0 + round) }
            #expect(!handles.contains(0))
            for handle in handles { table.remove(handle) }
        }
    }

    @Test func aHandleWhoseSlotWasReusedFindsNothing() {
        var table = SlotTable<String>()
        let stale = table.insert("old")
        table.remove(stale)
        let fresh = table.insert("new")  // The same slot, the next generation.
        #expect(fresh != stale)
        #expect(table.remove(stale) == nil)
        #expect(table.count == 1)
        #expect(table.remove(fresh) == "new")
    }

    @Test func handlesOfAnotherShapeFindNothing() {
        var table = SlotTable<String>()
        let handle = table.insert("only")
        for foreign: UInt64 in [0, 1, handle + 1, handle ^ (1 << 40), .max] {
            #expect(table.remove(foreign) == nil)
        }
        #expect(table.remove(handle) == "only")
    }

    @Test func removeAllReturnsEveryElementAndRetiresTheirHandles() {
        var table = SlotTable<Int>()
        let handles = (0..<50).map { table.insert($0) }
        for handle in handles where handle % 3 == 0 { table.remove(handle) }
        let remaining = Set((0..<50).filter { handles[$0] % 3 != 0 })
        #expect(Set(table.elements) == remaining)
        #expect(Set(table.removeAll()) == remaining)
        #expect(table.isEmpty)
        let reused = table.insert(99)
        for handle in handles { #expect(table.remove(handle) == nil) }
        #expect(table.remove(reused) == 99)
    }

    @Test func emptiedSlotsAreReusedSoTheTableDoesNotGrow() {
        var table = SlotTable<Int>()
        var live: [UInt64] = []
        for value in 0..<10_000 {
            live.append(table.insert(value))
            if live.count > 8 { table.remove(live.removeFirst()) }
        }
        #expect(table.count == 8)
        let probe = table.insert(-1)
        #expect(probe & 0xFFFF_FFFF < 9, "slot \(probe & 0xFFFF_FFFF) of a table that never held more than 9")
    }
}
