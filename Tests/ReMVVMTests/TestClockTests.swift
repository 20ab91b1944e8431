import ReMVVMTesting
import Testing

/// The clocks app developers test effects with.
@Suite("Test clocks")
struct TestClockTests {
    @Test func aTestClockEndsTheSleepsItIsAdvancedPast() async throws {
        let clock = TestClock()
        let ended = Locked<[Int]>([])
        try await withThrowingTaskGroup(of: Void.self) { group in
            for seconds in [3, 1, 2] {
                group.addTask {
                    try await clock.sleep(for: .seconds(seconds))
                    ended.withLock { $0.append(seconds) }
                }
            }
            await clock.waitForSleepers(3)
            clock.advance(by: .milliseconds(1999))
            #expect(clock.sleepers == 2, "only the one-second sleep ended")
            #expect(await eventually { ended.current == [1] })
            clock.advance(by: .seconds(2))
            try await group.waitForAll()
        }
        #expect(ended.current.sorted() == [1, 2, 3])
        #expect(clock.now.offset == .milliseconds(3999))
    }

    @Test func cancellingASleepOnATestClockEndsItWithCancellationError() async {
        let clock = TestClock()
        let sleep = Task { try await clock.sleep(for: .seconds(60)) }
        await clock.waitForSleepers()
        sleep.cancel()
        await #expect(throws: CancellationError.self) { try await sleep.value }
        #expect(clock.sleepers == 0)
    }

    @Test func aSleepUntilNowOrEarlierOnATestClockReturnsAtOnce() async throws {
        let clock = TestClock()
        clock.advance(by: .seconds(5))
        try await clock.sleep(until: clock.now.advanced(by: .seconds(-1)))
        #expect(clock.sleepers == 0)
    }

    @Test func anImmediateClockMovesByWhatIsSleptOnIt() async throws {
        let clock = ImmediateClock()
        try await clock.sleep(for: .seconds(2))
        try await clock.sleep(for: .milliseconds(500))
        #expect(clock.now.offset == .milliseconds(2500))
        try await clock.sleep(until: clock.now.advanced(by: .seconds(-1)))  // In the past: time does not go back.
        #expect(clock.now.offset == .milliseconds(2500))
    }
}
