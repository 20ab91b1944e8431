import Synchronization

/// The tasks that run the app's async code for parked requests (authenticators, app routes): owned here, at most
/// `limit` at once, and cancelled when the server stops.
///
/// Each task removes itself when its body returns; ``cancelAll()`` cancels the ones still running (a stopping
/// server's), whose requests are then answered as their bodies decide (503 draining, as a rule).
final class HandlerTasks: Sendable {
    private struct Running {
        var tasks: [UInt64: Task<Void, Never>] = [:]
        /// Tasks that ended before they were registered in `tasks`.
        var ended: Set<UInt64> = []
        /// Places taken, by running tasks whether registered yet or not.
        var count = 0
        var next: UInt64 = 0
        var closed = false
    }

    private let running = Mutex(Running())
    private let limit: Int

    init(limit: Int) {
        self.limit = limit
    }

    /// How many run now.
    var count: Int { running.withLock { $0.count } }

    /// Runs `body` in a task of its own; false (and nothing runs) when `limit` run already or the server stops.
    func run(_ body: @escaping @Sendable () async -> Void) -> Bool {
        let id = running.withLock { running -> UInt64? in
            guard !running.closed, running.count < limit else { return nil }
            running.count += 1
            running.next += 1
            return running.next
        }
        guard let id else { return false }
        let task = Task { [self] in
            await body()
            finish(id)
        }
        // Whichever of registering and ending comes second removes the entry.
        let cancel = running.withLock { running -> Bool in
            if running.ended.remove(id) != nil { return false }
            running.tasks[id] = task
            return running.closed
        }
        if cancel { task.cancel() }
        return true
    }

    /// Cancels every running task and takes no new one.
    func cancelAll() {
        let tasks = running.withLock { running in
            running.closed = true
            return Array(running.tasks.values)
        }
        for task in tasks { task.cancel() }
    }

    private func finish(_ id: UInt64) {
        running.withLock { running in
            running.count -= 1
            if running.tasks.removeValue(forKey: id) == nil { running.ended.insert(id) }
        }
    }
}
