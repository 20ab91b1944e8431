import Foundation

/// Holds server threads at a point the test chooses, and tells the test they arrived: a deterministic way to
/// keep a request in flight.
final class Gate: @unchecked Sendable {
    // Safety: `arrivals` and `isOpen` are read and written only with `condition` locked.
    private let condition = NSCondition()
    private var arrivals = 0
    private var isOpen = false

    /// How many callers reached the gate.
    var arrived: Int {
        condition.lock()
        defer { condition.unlock() }
        return arrivals
    }

    /// Lets every waiting and future caller through.
    func open() {
        condition.lock()
        isOpen = true
        condition.broadcast()
        condition.unlock()
    }

    /// Called on a server thread: waits until the gate opens, or `timeout` passed (so a failed test cannot hold
    /// the server forever).
    func pass(timeout: Duration = .seconds(5)) {
        let end = Date(timeIntervalSinceNow: Double(timeout.components.seconds))
        condition.lock()
        defer { condition.unlock() }
        arrivals += 1
        while !isOpen, condition.wait(until: end) {}
    }
}
