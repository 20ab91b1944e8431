import Synchronization

/// Bridges one parked change waiter to a continuation, resuming it exactly once whichever of
/// change, close or task cancellation comes first.
final class AsyncWaiter: Sendable {
    private struct State {
        var continuation: CheckedContinuation<StoreChange?, Never>?
        var token: WaiterToken?
        var cancelParked: (@Sendable (WaiterToken) -> Bool)?
        var isCancelled = false
    }

    private let state = Mutex(State())

    func install(_ continuation: CheckedContinuation<StoreChange?, Never>) {
        let cancelled = state.withLock { state in
            state.continuation = continuation
            return state.isCancelled
        }
        if cancelled { resume(nil) }
    }

    func park(_ token: WaiterToken, cancel: @escaping @Sendable (WaiterToken) -> Bool) {
        let cancelledEarly = state.withLock { state in
            state.token = token
            state.cancelParked = cancel
            return state.isCancelled
        }
        if cancelledEarly, cancel(token) { resume(nil) }
    }

    func resume(_ change: StoreChange?) {
        let continuation = state.withLock { state in
            defer { state.continuation = nil }
            return state.continuation
        }
        continuation?.resume(returning: change)
    }

    func cancel() {
        let parked = state.withLock { state -> (WaiterToken, @Sendable (WaiterToken) -> Bool)? in
            state.isCancelled = true
            guard let token = state.token, let cancel = state.cancelParked else { return nil }
            return (token, cancel)
        }
        if let (token, cancelParked) = parked, cancelParked(token) {
            resume(nil)
        } else if parked == nil {
            resume(nil)
        }
    }
}
