import CMicroHTTPD
import Glibc
import Synchronization

/// Resumes suspended connections from one thread, in batches, so that no libmicrohttpd worker waits for
/// another and a burst of answers costs libmicrohttpd one pass instead of one per answer.
///
/// libmicrohttpd 0.9.7x finds resumed connections by walking its whole list of suspended ones, holding a mutex
/// that `MHD_resume_connection` also takes, once per loop of the worker in which anything was resumed. With
/// 10,000 long-polls parked on as many sessions and their answers arriving one dispatch at a time, resuming on
/// the dispatching worker meant a walk of thousands of connections per answer, and that worker blocked
/// behind the walk of the other. Queued here instead, resumes gather while a walk runs and the next batch
/// costs one walk; the workers only append to a list.
///
/// Batches can also be paced (``ResumePacing``): after one, the thread waits a gap before it takes the next,
/// unless enough items have gathered meanwhile. The server paces by the number of suspended connections,
/// because that is what one walk costs: with one long-poll on each of 10,000 sessions the answers arrive one
/// dispatch at a time, and unpaced they cost libmicrohttpd a walk of thousands of connections almost per
/// answer. A change answering 10,000 polls of one session arrives as a burst, which fills batches at once.
///
/// What resuming means is passed to ``start(pacing:batchBegins:batchEnds:performing:)``, so the batching can be tested
/// without a daemon.
final class ResumeQueue: Sendable {
    typealias Item = ConnectionHandle

    private struct State: Sendable {
        var pending: [Item] = []
        /// Pending items that start a batch before the gap has passed (the last pacing's `enough`).
        var enough = 1
        var isStopped = false
        /// The resuming thread once started.
        var thread: OwnedThread?
    }

    private let state = Mutex(State())
    /// Counts wake-ups; the thread blocks reading it while nothing is pending.
    private let wakeDescriptor: Int32

    /// An idle queue; `nil` if the kernel refuses an eventfd (the caller then resumes directly).
    init?() {
        let wake = eventfd(0, Int32(EFD_CLOEXEC))
        guard wake >= 0 else { return nil }
        wakeDescriptor = wake
    }

    deinit {
        close(wakeDescriptor)
    }

    /// Starts the thread, which runs `perform` for every item in the order they were added, until ``stop()``;
    /// returns `false` if it could not be created (then ``add(_:)`` refuses everything).
    ///
    /// After each non-empty batch the thread asks `pacing` how to space the next: it starts once the gap has
    /// passed, or as soon as `enough` items are pending; items added meanwhile join it. An item arriving after a
    /// quiet spell longer than the gap is performed at once. `batchBegins` and `batchEnds` run on the thread
    /// just before and just after the items of each non-empty batch, for work a batch shares.
    func start(
        pacing: @escaping @Sendable () -> ResumePacing = { .none },
        batchBegins: @escaping @Sendable () -> Void = {},
        batchEnds: @escaping @Sendable () -> Void = {},
        performing perform: @escaping @Sendable (Item) -> Void
    ) -> Bool {
        let work = Work(pacing: pacing, batchBegins: batchBegins, batchEnds: batchEnds, perform: perform)
        // While it runs, the thread holds the queue.
        guard let thread = OwnedThread.start(named: "remvvm-resume", { [self] in run(work) }) else {
            state.withLock { $0.isStopped = true }
            return false
        }
        state.withLock { $0.thread = thread }
        return true
    }

    /// Queues `item`; returns `false` when the queue is not running, and the caller must perform it itself.
    func add(_ item: Item) -> Bool {
        let (accepted, wakes) = state.withLock { state -> (Bool, Bool) in
            guard !state.isStopped, state.thread != nil else { return (false, false) }
            state.pending.append(item)
            return (true, state.pending.count == 1 || state.pending.count == state.enough)
        }
        // The first item of a batch wakes the thread, and so does the one that makes the batch large enough to go
        // before its gap has passed; the others join the batch the thread is about to take.
        if wakes { signal() }
        return accepted
    }

    /// How many pending items start a batch before its gap has passed, as the last pacing decided.
    var enough: Int { state.withLock { $0.enough } }

    /// Performs everything still queued, then ends the thread; later ``add(_:)`` calls return `false`.
    /// Idempotent.
    func stop() {
        let thread = state.withLock { state -> OwnedThread? in
            guard !state.isStopped else { return nil }
            state.isStopped = true
            return state.thread
        }
        guard let thread else { return }
        signal()
        thread.join()
    }

    private func signal() {
        var one: UInt64 = 1
        _ = withUnsafeBytes(of: &one) { Glibc.write(wakeDescriptor, $0.baseAddress, $0.count) }
    }

    /// What the thread does with each batch (see ``start(pacing:batchBegins:batchEnds:performing:)``).
    private struct Work: Sendable {
        let pacing: @Sendable () -> ResumePacing
        let batchBegins: @Sendable () -> Void
        let batchEnds: @Sendable () -> Void
        let perform: @Sendable (Item) -> Void
    }

    private func run(_ work: Work) {
        var batch: [Item] = []
        var stopped = false
        var nextBatchAt: Int64 = 0
        while !stopped {
            let readFailed = !waitForSignal()
            waitForBatch(until: nextBatchAt)
            stopped = state.withLock { state in
                if readFailed { state.isStopped = true }  // Cannot wait any more: take the last batch and end.
                swap(&batch, &state.pending)  // Both arrays keep their capacity: no allocation per batch.
                return state.isStopped
            }
            guard !batch.isEmpty else { continue }  // A wake-up for a batch already taken: no walk to pace.
            work.batchBegins()
            for item in batch { work.perform(item) }
            work.batchEnds()
            let next = work.pacing()  // Asked first: the gap counts from the decision on.
            nextBatchAt = MonotonicClock.nanoseconds() + max(next.gap, 0)
            state.withLock { $0.enough = max(next.enough, 1) }
            batch.removeAll(keepingCapacity: true)
        }
    }

    /// Waits until `deadline` (monotonic nanoseconds) has passed, or until enough items are pending, or the queue
    /// stops, whichever comes first. A wake-up is watched for in whole milliseconds (`poll`); the last part of a
    /// millisecond is slept.
    private func waitForBatch(until deadline: Int64) {
        while true {
            let remaining = deadline - MonotonicClock.nanoseconds()
            guard remaining > 0 else { return }
            guard !state.withLock({ $0.isStopped || $0.pending.count >= $0.enough }) else { return }
            guard remaining >= 1_000_000 else {
                var pause = timespec(tv_sec: 0, tv_nsec: Int(remaining))
                _ = nanosleep(&pause, nil)  // Interrupted by a signal: the loop sleeps the rest.
                continue
            }
            guard waitForSignal(milliseconds: Int32(min(remaining / 1_000_000, 1_000))) else { return }
        }
    }

    /// Waits for a signal, at most `milliseconds` when given, and consumes it; returns `false` only when the
    /// descriptor can no longer be waited on (never for a timeout or an interrupted wait).
    private func waitForSignal(milliseconds: Int32? = nil) -> Bool {
        if let milliseconds {
            var descriptor = pollfd(fd: wakeDescriptor, events: Int16(POLLIN), revents: 0)
            let ready = poll(&descriptor, 1, milliseconds)
            if ready < 0 { return errno == EINTR }
            guard ready > 0 else { return true }  // Timed out.
        }
        var count: UInt64 = 0
        while true {
            let read = withUnsafeMutableBytes(of: &count) { Glibc.read(wakeDescriptor, $0.baseAddress, $0.count) }
            if read >= 0 { return true }
            if errno != EINTR { return false }
        }
    }
}
