import Dispatch
import Logging
import ReMVVMPersistence

extension StoreServer {
    /// How long ``stop()`` waits for answers held back until their version is on disk.
    static let durableAnswersGrace: DispatchTimeInterval = .seconds(5)

    /// Waits (at most ``durableAnswersGrace``) until the answers queued so far behind the durable
    /// store have gone out, so that the long-polls ``stop()`` just answered get their cursor, not
    /// the transport's 503 for requests still pending when it closes. Without durability, nothing
    /// is held back and this returns at once.
    func waitForDurableAnswers() {
        guard let durability = api.durability else { return }
        let written = DispatchSemaphore(value: 0)
        // Barriers are answered in order: when this one runs, every earlier answer has been sent.
        durability.whenDurable { _ in written.signal() }
        if written.wait(timeout: .now() + Self.durableAnswersGrace) == .timedOut {
            logger.warning("answers waiting for the durable store were not all sent before the transport closed")
        }
    }
}
