import MicroHTTP
import ReMVVM
import Synchronization

/// The server's housekeeping, on a thread of its own: long-poll timeouts, event-stream heartbeats, idle
/// session expiry and idle topics, each when it is due.
///
/// The thread sleeps until the next of them, at most ``longestSleep``, and a long-poll whose timeout comes
/// sooner wakes it (``DeadlineTimer/sleep(until:)``): an idle server wakes once a second, where a fixed 50 ms
/// tick woke it twenty times. Being a thread, it is not held up when Swift's few concurrency threads are busy.
final class Housekeeper: Sendable {
    /// The longest sleep: how often idle sessions are looked for (``ExpirySchedule`` files them by the second).
    static let longestSleep: Int64 = 1_000_000_000

    private struct State {
        var isStopped = false
        var thread: OwnedThread?
        var rounds = 0
    }

    private let api: API
    private let state = Mutex(State())

    init(api: API) {
        self.api = api
    }

    /// How many times the thread has woken and looked at what is due (for tests).
    var rounds: Int { state.withLock { $0.rounds } }

    /// Starts the thread; `false` if it could not be created.
    func start() -> Bool {
        // While it runs, the thread holds the housekeeper.
        guard let thread = OwnedThread.start(named: "remvvm-keeper", { [self] in run() }) else { return false }
        state.withLock { $0.thread = thread }
        return true
    }

    /// Ends the thread and waits for it. Idempotent.
    func stop() {
        let thread = state.withLock { state -> OwnedThread? in
            guard !state.isStopped else { return nil }
            state.isStopped = true
            return state.thread
        }
        guard let thread else { return }
        api.timer.interrupt()
        thread.join()
    }

    private func run() {
        let heartbeat = max(MonotonicClock.nanoseconds(of: api.configuration.heartbeatInterval), 1_000_000)
        let clock = api.timer.clock
        var nextHeartbeat = clock.now() + heartbeat
        var nextExpiry = clock.now() + Self.longestSleep
        // A tenth of the retention, at least a second: a topic outlives it by at most that much.
        let tidyInterval = max(
            MonotonicClock.nanoseconds(of: api.topics.configuration.retention) / 10, Self.longestSleep
        )
        var nextTidy = clock.now() + tidyInterval
        while !state.withLock({ $0.isStopped }) {
            api.timer.fireDue()
            let now = clock.now()
            if now >= nextHeartbeat {
                api.streams.heartbeat()
                nextHeartbeat = now + heartbeat
            }
            if now >= nextExpiry {
                api.expireIdleSessions(now: now)
                nextExpiry = now + Self.longestSleep
            }
            if now >= nextTidy {
                api.tidyTopics()
                nextTidy = clock.now() + tidyInterval
            }
            state.withLock { $0.rounds += 1 }
            api.timer.sleep(until: min(nextHeartbeat, nextExpiry))
        }
    }
}
