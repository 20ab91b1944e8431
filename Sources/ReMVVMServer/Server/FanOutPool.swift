import Dispatch
import MicroHTTP
import ReMVVM
import Synchronization

/// The server's own threads for the work its stores and topic hub hand off (``WorkScheduler``): the wake-up of
/// more than 64 long-polls or streams on one commit, and topic delivery passes beyond the publishing thread's.
///
/// The HTTP worker that dispatched runs small fan-outs itself; a larger one comes here, so the worker goes back
/// to its connections at once. The queue is bounded (``queueLimit``): beyond it a job is declined and its caller
/// runs it, which slows the caller down instead of growing memory. The server starts the threads with itself and
/// stops them with itself: ``stop()`` runs what is queued, joins the threads and declines every later job.
final class FanOutPool: WorkScheduler {
    /// A job, boxed in a struct so that moving it through the lock does not wrap the closure again.
    private struct Job {
        let run: @Sendable () -> Void
    }

    private enum Phase {
        case idle, running, stopped
    }

    private struct State {
        var phase = Phase.idle
        var jobs: [Job] = []
        /// The first job not yet taken in `jobs`.
        var head = 0
        var threads: [OwnedThread] = []
        var accepted = 0
        var declined = 0

        var queued: Int { jobs.count - head }

        mutating func take() -> Job? {
            guard head < jobs.count else { return nil }
            let job = jobs[head]
            head += 1
            if head == jobs.count {
                jobs.removeAll(keepingCapacity: true)
                head = 0
            }
            return job
        }
    }

    /// The most jobs queued at once; beyond it, callers run their own. Each job is a fan-out of more than 64
    /// waiters or a chunk of up to 64 delivery passes, so this holds tens of thousands of handlers' work.
    static let queueLimit = 1_024

    private let state = Mutex(State())
    /// One signal per queued job, and one per thread at ``stop()``.
    private let ready = DispatchSemaphore(value: 0)
    private let threadCount: Int

    /// A pool of `threads` threads (at least one), started by ``start()``.
    init(threads: Int) {
        threadCount = max(threads, 1)
    }

    /// Jobs taken so far.
    var acceptedJobs: Int { state.withLock { $0.accepted } }

    /// Jobs declined so far (queue full, or not running), which their callers ran.
    var declinedJobs: Int { state.withLock { $0.declined } }

    /// Whether the threads run: between ``start()`` and ``stop()``.
    var isRunning: Bool { state.withLock { $0.phase == .running } }

    /// Starts the threads; false (and none left running) when the system refused one or the pool has stopped.
    func start() -> Bool {
        guard state.withLock({ $0.phase == .idle }) else { return isRunning }
        var threads: [OwnedThread] = []
        for index in 0..<threadCount {
            guard let thread = OwnedThread.start(named: "remvvm-fanout\(index)", { [self] in work() }) else {
                // The ones started see the stop and end.
                state.withLock { $0.phase = .stopped }
                for _ in threads { ready.signal() }
                for thread in threads { thread.join() }
                return false
            }
            threads.append(thread)
        }
        state.withLock { state in
            state.phase = .running
            state.threads = threads
        }
        return true
    }

    func offer(_ job: @escaping @Sendable () -> Void) -> Bool {
        let taken = state.withLock { state -> Bool in
            guard state.phase == .running, state.queued < Self.queueLimit else {
                state.declined += 1
                return false
            }
            state.jobs.append(Job(run: job))
            state.accepted += 1
            return true
        }
        if taken { ready.signal() }
        return taken
    }

    /// Declines every later job, lets the threads run what is queued, and waits for them. Idempotent.
    func stop() {
        let threads = state.withLock { state -> [OwnedThread] in
            let wasRunning = state.phase == .running
            state.phase = .stopped
            defer { state.threads = [] }
            return wasRunning ? state.threads : []
        }
        for _ in threads { ready.signal() }
        for thread in threads { thread.join() }
    }

    /// A thread's loop: one job per signal, until the pool has stopped and nothing is queued.
    private func work() {
        while true {
            ready.wait()
            let next = state.withLock { state -> Job? in state.take() }
            if let next {
                next.run()
                continue
            }
            if state.withLock({ $0.phase == .stopped }) { return }
        }
    }
}
