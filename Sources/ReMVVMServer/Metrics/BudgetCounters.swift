import Synchronization

/// How often each budget a client can hit refused it, for `/metrics` (`remvvm_budget_refusals_total{budget=...}`).
///
/// Counters apart from ``ServerMetrics``, one atomic each, so that counting a refusal takes no lock and each maps to
/// one labelled counter of any metrics backend.
final class BudgetCounters: Sendable {
    /// A budget that refuses.
    enum Budget: CaseIterable {
        /// A session creation beyond the client address's token bucket (429).
        case sessionCreationRate
        /// An answer that would carry a view over ``ServerConfiguration/maxViewBytes`` (507).
        case viewSize
        /// A session ended after the unused-session TTL, created and never used.
        case unusedSession

        /// The label value.
        var label: String {
            switch self {
            case .sessionCreationRate: "session_creation_rate"
            case .viewSize: "view_size"
            case .unusedSession: "unused_session"
            }
        }
    }

    private let sessionCreationRate = Atomic<Int>(0)
    private let viewSize = Atomic<Int>(0)
    private let unusedSession = Atomic<Int>(0)

    /// Counts `amount` refusals of `budget`.
    func count(_ budget: Budget, _ amount: Int = 1) {
        switch budget {
        case .sessionCreationRate: sessionCreationRate.add(amount, ordering: .relaxed)
        case .viewSize: viewSize.add(amount, ordering: .relaxed)
        case .unusedSession: unusedSession.add(amount, ordering: .relaxed)
        }
    }

    /// The count of `budget` so far.
    subscript(budget: Budget) -> Int {
        switch budget {
        case .sessionCreationRate: sessionCreationRate.load(ordering: .relaxed)
        case .viewSize: viewSize.load(ordering: .relaxed)
        case .unusedSession: unusedSession.load(ordering: .relaxed)
        }
    }

    /// The counters in Prometheus text form.
    var exposition: String {
        var text = "# HELP remvvm_budget_refusals_total Requests refused, or sessions ended, by a budget.\n"
        text += "# TYPE remvvm_budget_refusals_total counter\n"
        for budget in Budget.allCases {
            text += "remvvm_budget_refusals_total{budget=\"\(budget.label)\"} \(self[budget])\n"
        }
        return text
    }
}
