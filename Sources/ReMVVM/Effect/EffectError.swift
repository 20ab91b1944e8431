/// A failure of a side effect, reported to the store's ``StoreConfiguration/onEffectError``.
public struct EffectError: Error, Sendable, CustomStringConvertible {
    /// Why the effect failed or was not started.
    public enum Reason: Sendable {
        /// The effect threw.
        case threw(any Error)
        /// The store already ran as many effects as it may at once.
        case tooManyEffects(limit: Int)
        /// Effects dispatched more follow-ups within a second than the store allows (a runaway loop).
        case followUpLimitExceeded(limit: Int)
    }

    /// Why the effect failed.
    public let reason: Reason
    /// The effect's id, if it had one.
    public let effectID: String?

    public var description: String {
        let name = effectID.map { "effect '\($0)'" } ?? "effect"
        switch reason {
        case .threw(let error): return "\(name) failed: \(error)"
        case .tooManyEffects(let limit): return "\(name) not started: \(limit) effects are already running"
        case .followUpLimitExceeded(let limit):
            return "\(name) dispatch dropped: more than \(limit) follow-up actions in one second"
        }
    }
}
