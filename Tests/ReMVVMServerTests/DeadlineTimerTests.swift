import Dispatch
import Glibc
import Synchronization
import Testing

@testable import ReMVVMServer

/// The long-poll timeouts' timer and the sleep of the thread that fires them.
@Suite("Deadline timer")
struct DeadlineTimerTests {
    private static let second: Int64 = 1_000_000_000

    /// Runs `sleep(until:)` on a thread of its own, as the housekeeper does; `finished` tells when it returned.
    private final class Sleeper: Sendable {
        private let returned = Mutex<Int64?>(nil)
        let started = Session.now()

        init(_ timer: DeadlineTimer, until limit: Int64) {
            DispatchQueue.global().async { [self] in
                timer.sleep(until: limit)
                returned.withLock { $0 = Session.now() }
            }
        }

        /// How long the sleep lasted, once it returned (waits at most `bound` nanoseconds for that).
        func slept(waitingAtMost bound: Int64) -> Int64? {
            let deadline = Session.now() + bound
            while Session.now() < deadline {
                if let returned = returned.withLock({ $0 }) { return returned - started }
                usleep(1_000)
            }
            return nil
        }
    }

    @Test func aSleepEndsAtTheEarliestDeadline() throws {
        let timer = DeadlineTimer()
        let fired = Atomic<Int>(0)
        _ = timer.schedule(after: .milliseconds(200)) { fired.add(1, ordering: .relaxed) }
        let sleeper = Sleeper(timer, until: Session.now() + 60 * Self.second)
        let slept = try #require(sleeper.slept(waitingAtMost: 30 * Self.second), "the sleep outlasted 30 s")
        #expect(slept >= 150_000_000)
        #expect(slept < 30 * Self.second)
        timer.fireDue()
        #expect(fired.load(ordering: .relaxed) == 1)
    }

    @Test func aDeadlineScheduledDuringASleepBeforeItsEndWakesTheSleeper() throws {
        let timer = DeadlineTimer()
        let sleeper = Sleeper(timer, until: Session.now() + 60 * Self.second)
        usleep(100_000)  // Asleep by now (a late start only shortens the test).
        let fired = Atomic<Int>(0)
        _ = timer.schedule(after: .milliseconds(100)) { fired.add(1, ordering: .relaxed) }
        // Woken at once, to sleep again until the new earliest deadline (as the housekeeper does).
        let slept = try #require(sleeper.slept(waitingAtMost: 30 * Self.second), "a nearer deadline did not wake it")
        #expect(slept < 30 * Self.second)
        timer.sleep(until: Session.now() + 60 * Self.second)  // Until the deadline's bucket.
        timer.fireDue()
        #expect(fired.load(ordering: .relaxed) == 1)
    }

    @Test func aLaterDeadlineLetsTheSleeperSleepOn() throws {
        let timer = DeadlineTimer()
        let sleeper = Sleeper(timer, until: Session.now() + 400_000_000)
        usleep(50_000)
        _ = timer.schedule(after: .seconds(60)) {}
        let slept = try #require(sleeper.slept(waitingAtMost: 30 * Self.second))
        #expect(slept >= 350_000_000, "woken by a deadline after the end of its sleep")
    }

    @Test func anInterruptWakesTheSleeper() throws {
        let timer = DeadlineTimer()
        let sleeper = Sleeper(timer, until: Session.now() + 60 * Self.second)
        usleep(50_000)
        timer.interrupt()
        let slept = try #require(sleeper.slept(waitingAtMost: 30 * Self.second), "interrupt() did not wake it")
        #expect(slept < 30 * Self.second)
    }

    @Test func aCancelledCallbackNeverFires() {
        let timer = DeadlineTimer()
        let fired = Atomic<Int>(0)
        let id = timer.schedule(after: .zero) { fired.add(1, ordering: .relaxed) }
        _ = timer.schedule(after: .zero) { fired.add(10, ordering: .relaxed) }
        #expect(timer.cancel(id))
        usleep(120_000)  // Past its 50 ms bucket.
        timer.fireDue()
        #expect(fired.load(ordering: .relaxed) == 10)
        #expect(!timer.cancel(id))
        #expect(timer.count == 0)
    }

    @Test func theIdOfAFiredCallbackCancelsNothingScheduledLater() {
        let timer = DeadlineTimer()
        let fired = Atomic<Int>(0)
        let early = timer.schedule(after: .zero) { fired.add(1, ordering: .relaxed) }
        usleep(120_000)
        timer.fireDue()
        let later = timer.schedule(after: .zero) { fired.add(10, ordering: .relaxed) }  // Reuses the fired one's slot.
        #expect(!timer.cancel(early))
        usleep(120_000)
        timer.fireDue()
        #expect(fired.load(ordering: .relaxed) == 11)
        #expect(!timer.cancel(later))
    }

    @Test func fireAllFiresWhatWaitsAndNothingCancelled() {
        let timer = DeadlineTimer()
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
