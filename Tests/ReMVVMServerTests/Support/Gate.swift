import Glibc
import Synchronization

/// Holds server threads at a point the test chooses, and tells the test they arrived: a deterministic way to
/// keep a request in flight.
final class Gate: Sendable {
    private struct State {
        var arrived = 0
        var isOpen = false
    }

    private let state = Mutex(State())

    /// How many callers reached the gate.
    var arrived: Int { state.withLock { $0.arrived } }

    /// Lets every waiting and future caller through.
    func open() {
        state.withLock { $0.isOpen = true }
    }

    /// Called on a server thread: waits until the gate opens, or `timeout` passed (so a failed test cannot hold
    /// the server forever).
    func pass(timeout: Duration = .seconds(5)) {
        state.withLock { $0.arrived += 1 }
        let clock = ContinuousClock()
        let end = clock.now.advanced(by: timeout)
        while !state.withLock({ $0.isOpen }), clock.now < end {
            usleep(1_000)
        }
    }
}
