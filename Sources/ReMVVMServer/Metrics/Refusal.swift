/// Why the server refused a request to protect one of its budgets: the `reason` label of
/// `remvvm_refusals_total`, counted by ``ServerMetrics/refused(_:)``.
///
/// Every budget a client can hit has a case here, so an operator sees which one binds. The transport's own
/// refusals (connections per address, the request head's deadline, bodies too large) reach it through the
/// transport's refusal callback, by raw value.
enum Refusal: String, CaseIterable, Sendable {
    /// More open connections from one client address than allowed.
    case connectionsPerAddress = "connections-per-address"
    /// A request head that did not arrive whole within its deadline.
    case headDeadline = "head-deadline"
    /// A request body over the size limit (413).
    case bodyTooLarge = "body-too-large"
    /// Sessions created too fast from one client address (429).
    case sessionCreationRate = "session-creation-rate"
    /// The server holds its maximum of sessions (503).
    case sessionLimit = "session-limit"
    /// Too many parked long-polls on one session (429).
    case pollsPerSession = "polls-per-session"
    /// Too many event streams on one session (429).
    case streamsPerSession = "streams-per-session"
    /// The server-wide buffer of event streams is spent (503).
    case streamBudget = "stream-budget"
    /// A view passed its size budget at dispatch.
    case viewBudget = "view-budget"

    /// The case's position in `allCases`, for counters kept in an array.
    var index: Int {
        switch self {
        case .connectionsPerAddress: 0
        case .headDeadline: 1
        case .bodyTooLarge: 2
        case .sessionCreationRate: 3
        case .sessionLimit: 4
        case .pollsPerSession: 5
        case .streamsPerSession: 6
        case .streamBudget: 7
        case .viewBudget: 8
        }
    }
}
