import Dispatch
import Foundation

@testable import ReMVVMServer

/// A ``ServerClock`` that moves only when the test says so: a sleep ends when ``advance(by:)`` passes its
/// deadline, or when its alarm rings. Every sleep is recorded, so a test can wait for the sleeper to be asleep
/// (a real event on another thread) instead of waiting for time to pass.
final class ManualServerClock: ServerClock, @unchecked Sendable {
    // Safety: every stored property is read and written with `condition` locked.
    /// One sleep: when it began, until when, and the alarm that ends it early.
    struct Sleep: Sendable {
        let start: Int64
        let deadline: Int64
        /// How long it was meant to last.
        var length: Duration { .nanoseconds(deadline - start) }
    }

    private let condition = NSCondition()
    /// Starts at the machine's monotonic clock, the time base of a request's arrival by which a session counts as
    /// used (expiry compares the two), rounded down to a whole second so that the timer's 50 ms buckets begin
    /// where the tests count from.
    private var current: Int64 = Session.now() / 1_000_000_000 * 1_000_000_000
    private var sleeps: [Sleep] = []
    /// The alarms of the sleeps under way, by their index in `sleeps`.
    private var asleep: [Int: DispatchSemaphore] = [:]

    func now() -> Int64 { locked { current } }

    func sleep(until deadline: Int64, alarm: DispatchSemaphore) {
        let index: Int? = locked {
            guard deadline > current else { return nil }
            sleeps.append(Sleep(start: current, deadline: deadline))
            asleep[sleeps.count - 1] = alarm
            condition.broadcast()
            return sleeps.count - 1
        }
        guard let index else { return }
        alarm.wait()
        locked { asleep[index] = nil }
    }

    /// Moves time forward, ending the sleeps whose deadline it passes.
    func advance(by duration: Duration) {
        let (seconds, attoseconds) = duration.components
        locked {
            current += seconds * 1_000_000_000 + attoseconds / 1_000_000_000
            for (index, alarm) in asleep where sleeps[index].deadline <= current {
                asleep[index] = nil  // Rung once: a second ring would end the sleeper's next sleep at once.
                alarm.signal()
            }
        }
    }

    /// The `number`th sleep (from 1), once some thread has begun it; nil if none has within `timeout`.
    func sleep(number: Int, timeout: TimeInterval = 30) -> Sleep? {
        let end = Date(timeIntervalSinceNow: timeout)
        return locked {
            while sleeps.count < number {
                guard condition.wait(until: end) else { return nil }
            }
            return sleeps[number - 1]
        }
    }

    /// The first sleep, from the `from`th on (counting from 1), that `matches`, once some thread has begun it; nil if
    /// none has within `timeout`.
    func sleep(from: Int = 1, where matches: (Sleep) -> Bool, timeout: TimeInterval = 30) -> Sleep? {
        let end = Date(timeIntervalSinceNow: timeout)
        return locked {
            var next = from - 1
            while true {
                while next < sleeps.count {
                    if matches(sleeps[next]) { return sleeps[next] }
                    next += 1
                }
                guard condition.wait(until: end) else { return nil }
            }
        }
    }

    /// How many sleeps have begun.
    var sleepCount: Int { locked { sleeps.count } }

    private func locked<Result>(_ body: () -> Result) -> Result {
        condition.lock()
        defer { condition.unlock() }
        return body()
    }
}
