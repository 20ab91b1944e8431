import Testing

@testable import ReMVVMServer

/// The expiry schedule alone: which filings come out when.
@Suite("Expiry schedule")
struct ExpiryScheduleTests {
    private static let second: Int64 = 1_000_000_000

    private static func key(_ number: Int) throws -> SessionKey {
        let digits = String(number, radix: 16)
        return try #require(SessionKey(String(repeating: "0", count: 32 - digits.count) + digits))
    }

    @Test func aFilingComesOutOnceTheSecondOfItsDeadlineHasEnded() throws {
        var schedule = ExpirySchedule(now: 100 * Self.second)
        let key = try Self.key(1)
        schedule.file(key, dueAt: 105 * Self.second + 300_000_000)
        #expect(schedule.takeDue(now: 105 * Self.second + 900_000_000).isEmpty)  // Its second has not ended.
        #expect(schedule.takeDue(now: 106 * Self.second) == [key])
        #expect(schedule.takeDue(now: 200 * Self.second).isEmpty)  // Taken once.
        #expect(schedule.count == 0)
    }

    @Test func filingsOfPassedSecondsComeOutTogetherInTheirOrder() throws {
        var schedule = ExpirySchedule(now: 0)
        let (first, second, later) = (try Self.key(1), try Self.key(2), try Self.key(3))
        schedule.file(second, dueAt: 3 * Self.second)
        schedule.file(first, dueAt: 1 * Self.second)
        schedule.file(later, dueAt: 60 * Self.second)
        #expect(schedule.takeDue(now: 10 * Self.second) == [first, second])
        #expect(schedule.count == 1)
    }

    @Test func aDeadlineAlreadyTakenIsFiledUnderTheNextSecond() throws {
        var schedule = ExpirySchedule(now: 50 * Self.second)
        let key = try Self.key(7)
        #expect(schedule.takeDue(now: 60 * Self.second).isEmpty)
        schedule.file(key, dueAt: 10 * Self.second)  // In a second already taken: not lost.
        #expect(schedule.takeDue(now: 61 * Self.second) == [key])
    }

    @Test func afterALongPauseOnlyFiledSecondsAreRead() throws {
        var schedule = ExpirySchedule(now: 0)
        let key = try Self.key(9)
        schedule.file(key, dueAt: 5 * Self.second)
        // A pause of a hundred years takes the filed second without stepping through every one in between.
        #expect(schedule.takeDue(now: 100 * 365 * 86_400 * Self.second) == [key])
    }

    @Test func timesBeforeZeroRoundDown() throws {
        var schedule = ExpirySchedule(now: -10 * Self.second)
        let key = try Self.key(4)
        schedule.file(key, dueAt: -Self.second / 2)  // In the second that ends at zero.
        #expect(schedule.takeDue(now: -1).isEmpty)
        #expect(schedule.takeDue(now: 0) == [key])
    }
}
