/// Where a store and a ``TopicHub`` hand the work that fans out beyond the thread that caused it: the wake-up
/// of more than 64 change waiters at once, and topic delivery passes (a large fan-out in chunks, and a
/// session's passes after its first).
///
/// The core owns no threads. A server injects a scheduler that runs jobs on workers it owns and stops with
/// it (``StoreConfiguration/scheduler``); without one, ``InlineScheduler`` runs everything on the caller's
/// thread.
public protocol WorkScheduler: Sendable {
    /// Takes `job` to run once, later, on a thread of the scheduler's; false when it does not take it (its
    /// queue is full, or it has stopped), and the caller then runs `job` itself: that is the backpressure.
    func offer(_ job: @escaping @Sendable () -> Void) -> Bool
}

/// Takes no job, so every fan-out runs on the thread that caused it, before the call that caused it returns:
/// the default for a store used without a server, and for tests.
public struct InlineScheduler: WorkScheduler {
    /// The scheduler that runs nothing itself.
    public init() {}

    /// Declines `job`: the caller runs it.
    public func offer(_ job: @escaping @Sendable () -> Void) -> Bool { false }
}
