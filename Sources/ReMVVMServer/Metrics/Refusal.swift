/// Why the server refused a request to protect one of its budgets: the `reason` label of
/// `remvvm_refusals_total`, counted by ``ServerMetrics/refused(_:)``.
///
/// Every budget a client can hit has a case here, so an operator sees which one binds. The transport's own
/// refusals (connections per address, the request's deadlines, bodies too large, the streams' buffer) are read
/// from its statistics at each scrape (``ServerMetrics/addRefusals(_:since:)``).
enum Refusal: String, CaseIterable, Sendable {
    /// More open connections from one client address than allowed.
    case connectionsPerAddress = "connections-per-address"
    /// A request head that did not arrive whole within its deadline.
    case headDeadline = "head-deadline"
    /// A request body that did not arrive whole within its deadline (408).
    case bodyDeadline = "body-deadline"
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
        case .bodyDeadline: 2
        case .bodyTooLarge: 3
        case .sessionCreationRate: 4
        case .sessionLimit: 5
        case .pollsPerSession: 6
        case .streamsPerSession: 7
        case .streamBudget: 8
        case .viewBudget: 9
        }
    }
}
