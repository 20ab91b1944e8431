/// What the client's view of the session went through: for a status line, logs and tests.
public enum SyncEvent: Sendable, Hashable {
    /// The views were fetched whole, at this version (the first read, or after a change that did not apply).
    case snapshot(StoreVersion)
    /// The views moved on by a change from the version the client held: the cursor was continued.
    case change(from: StoreVersion, to: StoreVersion)
    /// The server could not continue from the client's version and sent the views whole (`expired`, `epoch`,
    /// `ahead`).
    case reset(reason: String, to: StoreVersion)
    /// Another node took the session over and ended the event stream; the client reconnected to its URL from its
    /// cursor, which reaches the new owner behind a balancer. (A long-poll is let go with its cursor and polled
    /// again without an event.)
    case moved
    /// A request failed in a way that waiting can cure; the client retries after a backoff.
    case retrying(ClientError)
    /// The session is gone (deleted, expired, or the token no longer fits); following stopped.
    case sessionEnded(ClientError)
}
