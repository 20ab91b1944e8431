/// What the server did with one sent action.
public struct ActionOutcome: Sendable, Hashable {
    /// Applied, or refused by the app's middleware.
    public enum Result: Sendable, Hashable {
        /// The reducers ran.
        case applied
        /// Middleware blocked the action, for this reason; the state did not change because of it.
        case blocked(reason: String)
    }

    /// Applied or blocked.
    public let result: Result
    /// The version that holds the action (for a blocked one, the version committed with it).
    public let version: StoreVersion
    /// The action's `Idempotency-Key`: its identity in the outbox and on the server.
    public let key: String
    /// The action's wire name.
    public let type: String

    /// Whether the reducers ran.
    public var isApplied: Bool { result == .applied }
}

extension ActionOutcome: CustomStringConvertible {
    /// `counter/set: applied at 3f2a….4`, or `counter/set: blocked (why) at 3f2a….4`.
    public var description: String {
        switch result {
        case .applied: "\(type): applied at \(version)"
        case .blocked(let reason): "\(type): blocked (\(reason)) at \(version)"
        }
    }
}

/// What happened to an action in the outbox, for whoever is no longer waiting on its `send` (or never was: a
/// process that started again after being killed with actions still queued).
public enum OutboxEvent: Sendable, Hashable {
    /// The server answered; the action was applied or blocked.
    case delivered(ActionOutcome)
    /// The server refused the request (a 4xx that a retry cannot change); the action was dropped from the outbox.
    case failed(key: String, type: String, error: ClientError)
}
