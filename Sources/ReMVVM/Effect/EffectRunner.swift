import Synchronization

/// Runs a store's effects as tasks the store owns, so that closing the store cancels them all.
///
/// The follow-up limit is counted in windows of one second of the store's clock (``Services/clock``), so a test
/// that injects a clock decides when a window ends.
final class EffectRunner: Sendable {
    private struct Table {
        var tasks: [UInt64: Task<Void, Never>] = [:]
        var keysByID: [String: UInt64] = [:]
        var nextKey: UInt64 = 0
        var isClosed = false
        /// When the current follow-up window began, as time since the runner was made.
        var windowStart = Duration.zero
        var followUpsInWindow = 0
    }

    private let table = Mutex(Table())
    /// Effects running in this process, in every store: the server's `remvvm_running_effects` gauge, read in
    /// O(1) rather than by asking each store.
    static let runningInProcess = Atomic<Int>(0)

    /// The current value of ``runningInProcess``.
    static var runningInProcessCount: Int { runningInProcess.load(ordering: .relaxed) }
    private let configuration: StoreConfiguration
    /// Time since the runner was made, on the store's clock.
    private let elapsed: @Sendable () -> Duration
    /// Called each time an effect ends (the test store waits on it).
    private let finishListeners = Mutex<[@Sendable () -> Void]>([])

    init(configuration: StoreConfiguration, clock: any Clock<Duration> = ContinuousClock()) {
        self.configuration = configuration
        elapsed = Self.stopwatch(clock)
    }

    private static func stopwatch<C: Clock<Duration>>(_ clock: C) -> @Sendable () -> Duration {
        let origin = clock.now
        return { origin.duration(to: clock.now) }
    }

    /// Calls `listener` after each effect ends, from the effect's task.
    func onFinish(_ listener: @escaping @Sendable () -> Void) {
        finishListeners.withLock { $0.append(listener) }
    }

    var runningCount: Int { table.withLock { $0.tasks.count } }

    /// Carries out the effect requests of one committed dispatch, in order.
    func perform(_ requests: [EffectRequest], context: EffectContext) {
        var refused: [EffectError] = []
        var cancelled: [Task<Void, Never>] = []
        table.withLock { table in
            for request in requests {
                switch request {
                case .cancel(let id):
                    if let key = table.keysByID.removeValue(forKey: id), let task = table.tasks.removeValue(forKey: key)
                    {
                        Self.runningInProcess.subtract(1, ordering: .relaxed)
                        cancelled.append(task)
                    }
                case .start(let effect):
                    guard !table.isClosed else { continue }
                    if let id = effect.id, let key = table.keysByID.removeValue(forKey: id),
                        let task = table.tasks.removeValue(forKey: key)
                    {
                        Self.runningInProcess.subtract(1, ordering: .relaxed)
                        cancelled.append(task)
                    }
                    guard table.tasks.count < configuration.maxRunningEffects else {
                        let limit = configuration.maxRunningEffects
                        refused.append(EffectError(reason: .tooManyEffects(limit: limit), effectID: effect.id))
                        continue
                    }
                    table.nextKey += 1
                    let key = table.nextKey
                    if let id = effect.id { table.keysByID[id] = key }
                    Self.runningInProcess.add(1, ordering: .relaxed)
                    table.tasks[key] = Task { [self] in
                        await self.run(effect, key: key, context: context)
                    }
                }
            }
        }
        for task in cancelled { task.cancel() }
        for error in refused { configuration.onEffectError(error) }
    }

    private func run(_ effect: Effect, key: UInt64, context: EffectContext) async {
        do {
            try await effect.operation(context)
        } catch is CancellationError {
            // Cancelled by its owner: not a failure.
        } catch {
            if !Task.isCancelled {
                configuration.onEffectError(EffectError(reason: .threw(error), effectID: effect.id))
            }
        }
        table.withLock { table in
            if table.tasks.removeValue(forKey: key) != nil { Self.runningInProcess.subtract(1, ordering: .relaxed) }
            if let id = effect.id, table.keysByID[id] == key { table.keysByID[id] = nil }
        }
        for listener in finishListeners.withLock({ $0 }) { listener() }
    }

    /// Counts one follow-up dispatch; false (and a report) when effects exceed the per-second limit.
    func admitFollowUp() -> Bool {
        let now = elapsed()
        let admitted = table.withLock { table in
            if now - table.windowStart >= .seconds(1) {
                table.windowStart = now
                table.followUpsInWindow = 0
            }
            table.followUpsInWindow += 1
            return table.followUpsInWindow <= configuration.maxFollowUpsPerSecond
        }
        if !admitted {
            let limit = configuration.maxFollowUpsPerSecond
            configuration.onEffectError(EffectError(reason: .followUpLimitExceeded(limit: limit), effectID: nil))
        }
        return admitted
    }

    /// Cancels every running effect and refuses new ones.
    func cancelAll() {
        let tasks = table.withLock { table in
            table.isClosed = true
            table.keysByID.removeAll()
            Self.runningInProcess.subtract(table.tasks.count, ordering: .relaxed)
            defer { table.tasks.removeAll() }
            return Array(table.tasks.values)
        }
        for task in tasks { task.cancel() }
    }
}
