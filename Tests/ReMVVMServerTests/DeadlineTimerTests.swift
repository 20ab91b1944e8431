import Dispatch
import Synchronization
import Testing

@testable import ReMVVMServer

/// The long-poll timeouts' timer and the sleep of the thread that fires them, on a clock the test moves.
@Suite("Deadline timer")
struct DeadlineTimerTests {
    let clock = ManualServerClock()
    let timer: DeadlineTimer

    init() {
        timer = DeadlineTimer(clock: clock)
    }

    /// Runs `sleep(until:)` on a thread of its own, as the housekeeper does.
    private final class Sleeper: Sendable {
        private let returned = DispatchSemaphore(value: 0)

        init(_ timer: DeadlineTimer, until limit: Int64) {
            DispatchQueue.global().async { [self] in
                timer.sleep(until: limit)
                returned.signal()
            }
        }

        /// Whether the sleep returned; waits at most 30 s for it (a bound only a failing test reaches).
        func hasReturned() -> Bool {
            returned.wait(timeout: .now() + .seconds(30)) == .success
        }
    }

    private static func nanoseconds(_ duration: Duration) -> Int64 {
        duration.components.seconds * 1_000_000_000 + duration.components.attoseconds / 1_000_000_000
    }

    @Test func aSleepEndsAtTheEarliestDeadline() throws {
        let fired = Atomic<Int>(0)
        _ = timer.schedule(after: .milliseconds(200)) { fired.add(1, ordering: .relaxed) }
        let sleeper = Sleeper(timer, until: clock.now() + Self.nanoseconds(.seconds(60)))
        let sleep = try #require(clock.sleep(number: 1), "the sleeper never slept")
        // Until the end of the 50 ms bucket the deadline falls in, not the sleep's own limit.
        #expect(sleep.length >= .milliseconds(200) && sleep.length < .milliseconds(250), "\(sleep.length)")
        clock.advance(by: sleep.length)
        #expect(sleeper.hasReturned())
        timer.fireDue()
        #expect(fired.load(ordering: .relaxed) == 1)
        #expect(timer.alarmsRung == 0, "nothing needed waking early")
    }

    @Test func aDeadlineScheduledDuringASleepBeforeItsEndWakesTheSleeper() throws {
        let sleeper = Sleeper(timer, until: clock.now() + Self.nanoseconds(.seconds(60)))
        #expect(try #require(clock.sleep(number: 1)).length == .seconds(60))
        let fired = Atomic<Int>(0)
        _ = timer.schedule(after: .milliseconds(100)) { fired.add(1, ordering: .relaxed) }
        #expect(timer.alarmsRung == 1)
        #expect(sleeper.hasReturned(), "a nearer deadline did not wake it")  // The clock has not moved.
        // It sleeps again, as the housekeeper does, now until the new deadline's bucket.
        let again = Sleeper(timer, until: clock.now() + Self.nanoseconds(.seconds(60)))
        let sleep = try #require(clock.sleep(number: 2))
        #expect(sleep.length >= .milliseconds(100) && sleep.length < .milliseconds(150), "\(sleep.length)")
        clock.advance(by: sleep.length)
        #expect(again.hasReturned())
        timer.fireDue()
        #expect(fired.load(ordering: .relaxed) == 1)
    }

    @Test func aLaterDeadlineLetsTheSleeperSleepOn() throws {
        let sleeper = Sleeper(timer, until: clock.now() + Self.nanoseconds(.milliseconds(400)))
        _ = try #require(clock.sleep(number: 1))
        _ = timer.schedule(after: .seconds(60)) {}
        #expect(timer.alarmsRung == 0, "woken by a deadline after the end of its sleep")
        clock.advance(by: .milliseconds(400))
        #expect(sleeper.hasReturned())
        #expect(clock.sleepCount == 1)
    }

    @Test func anInterruptWakesTheSleeper() throws {
        let sleeper = Sleeper(timer, until: clock.now() + Self.nanoseconds(.seconds(60)))
        _ = try #require(clock.sleep(number: 1))
        timer.interrupt()
        #expect(sleeper.hasReturned(), "interrupt() did not wake it")  // The clock has not moved.
    }

    @Test func aCallbackFiresOnlyOnceItsBucketHasPassed() {
        let fired = Atomic<Int>(0)
        _ = timer.schedule(after: .milliseconds(120)) { fired.add(1, ordering: .relaxed) }
        clock.advance(by: .milliseconds(100))
        timer.fireDue()
        #expect(fired.load(ordering: .relaxed) == 0)
        clock.advance(by: .milliseconds(50))
        timer.fireDue()
        #expect(fired.load(ordering: .relaxed) == 1)
    }

    @Test func aCancelledCallbackNeverFires() {
        let fired = Atomic<Int>(0)
        let id = timer.schedule(after: .zero) { fired.add(1, ordering: .relaxed) }
        _ = timer.schedule(after: .zero) { fired.add(10, ordering: .relaxed) }
        #expect(timer.cancel(id))
        clock.advance(by: .milliseconds(120))  // Past its 50 ms bucket.
        timer.fireDue()
        #expect(fired.load(ordering: .relaxed) == 10)
        #expect(!timer.cancel(id))
        #expect(timer.count == 0)
    }

    @Test func theIdOfAFiredCallbackCancelsNothingScheduledLater() {
        let fired = Atomic<Int>(0)
        let early = timer.schedule(after: .zero) { fired.add(1, ordering: .relaxed) }
        clock.advance(by: .milliseconds(120))
        timer.fireDue()
        let later = timer.schedule(after: .zero) { fired.add(10, ordering: .relaxed) }  // Reuses the fired one's slot.
        #expect(!timer.cancel(early))
        clock.advance(by: .milliseconds(120))
        timer.fireDue()
        #expect(fired.load(ordering: .relaxed) == 11)
        #expect(!timer.cancel(later))
    }

    @Test func fireAllFiresWhatWaitsAndNothingCancelled() {
        let fired = Atomic<Int>(0)
        let cancelled = timer.schedule(after: .seconds(60)) { fired.add(100, ordering: .relaxed) }
        _ = timer.schedule(after: .seconds(60)) { fired.add(1, ordering: .relaxed) }
        _ = timer.schedule(after: .seconds(30)) { fired.add(10, ordering: .relaxed) }
        timer.cancel(cancelled)
        timer.fireAll()
        #expect(fired.load(ordering: .relaxed) == 11)
        #expect(timer.count == 0)
    }
}
