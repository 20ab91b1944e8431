import Testing

@testable import ReMVVMServer

/// The token buckets of session creation per client address, on a clock the test gives: the burst, the refill,
/// `Retry-After`, and a table that stays bounded whatever the number of addresses.
@Suite("Address budget")
struct AddressBudgetTests {
    private static let second: Int64 = 1_000_000_000

    @Test func anAddressSpendsItsBurstThenOneTokenPerRefill() {
        let budget = AddressBudget(burst: 3, rate: 2, capacity: 10)
        #expect((0..<3).map { _ in budget.take("a", now: 0) } == [.admitted, .admitted, .admitted])
        #expect(budget.take("a", now: 0) == .refused(retryAfter: 1))
        #expect(budget.take("b", now: 0) == .admitted)  // Another address has its own bucket.
        #expect(budget.take("a", now: Self.second / 2) == .admitted)  // Half a second: one token at 2/s.
        #expect(budget.take("a", now: Self.second / 2) == .refused(retryAfter: 1))
        #expect((0..<3).map { _ in budget.take("a", now: 10 * Self.second) } == [.admitted, .admitted, .admitted])
    }

    @Test func aSlowRefillSaysHowLongToWait() {
        let budget = AddressBudget(burst: 1, rate: 0.1, capacity: 10)
        #expect(budget.take("a", now: 0) == .admitted)
        #expect(budget.take("a", now: 0) == .refused(retryAfter: 10))
        #expect(budget.take("a", now: 4 * Self.second) == .refused(retryAfter: 6))
    }

    /// At capacity the full buckets go first (forgetting them changes nothing); when an address flood left none
    /// full, the least recently used half.
    @Test func theTableStaysWithinItsCapacity() {
        let budget = AddressBudget(burst: 2, rate: 1, capacity: 4)
        for address in ["a", "b", "c", "d"] { #expect(budget.take(address, now: 0) == .admitted) }
        #expect(budget.count == 4)
        // Ten seconds on, every bucket is full again: all are forgotten to make room for "e".
        #expect(budget.take("e", now: 10 * Self.second) == .admitted)
        #expect(budget.count == 1)
        for (offset, address) in ["f", "g", "h"].enumerated() {
            #expect(budget.take(address, now: 10 * Self.second + Int64(offset + 1)) == .admitted)
        }
        #expect(budget.count == 4)
        // None full: the two most recent ("g", "h") stay, with what they spent; then "i" comes in.
        #expect(budget.take("i", now: 10 * Self.second + 10) == .admitted)
        #expect(budget.count == 3)
        #expect(budget.take("h", now: 10 * Self.second + 10) == .admitted)
        #expect(budget.take("h", now: 10 * Self.second + 10) == .refused(retryAfter: 1))
        for index in 0..<1_000 { _ = budget.take("flood-\(index)", now: 10 * Self.second + 20) }
        #expect(budget.count <= 4)
    }
}
