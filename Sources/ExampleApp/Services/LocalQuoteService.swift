import ReMVVM
import Synchronization

/// A local, deterministic quote service: quotes in a fixed rotation per category, after a
/// short delay on the injected clock, so the client has a loading state to show.
public final class LocalQuoteService: QuoteService {
    /// Why a quote could not be had.
    public struct Failure: Error, Sendable, CustomStringConvertible {
        /// The category asked for.
        public let category: String
        /// A failure for `category`.
        public init(category: String) { self.category = category }
        public var description: String { "no quotes about '\(category)'" }
    }

    static let quotes: [String: [String]] = [
        "wisdom": [
            "Simplicity is prerequisite for reliability. (Edsger W. Dijkstra)",
            "The purpose of abstraction is not to be vague, but to create a new semantic level. (Edsger W. Dijkstra)",
            "Make it work, make it right, make it fast. (Kent Beck)",
        ],
        "humor": [
            "There are two hard things in computer science: cache invalidation, naming things, and off-by-one errors.",
            "It works on my machine.",
        ],
        "science": [
            "Nothing in life is to be feared, it is only to be understood. (Marie Curie)",
            "The important thing is not to stop questioning. (Albert Einstein)",
        ],
    ]

    private let delay: Duration
    private let clock: any Clock<Duration>
    private let served = Mutex<[String: Int]>([:])

    /// A service that answers after `delay` on `clock`.
    public init(delay: Duration = .milliseconds(300), clock: any Clock<Duration> = ContinuousClock()) {
        self.delay = delay
        self.clock = clock
    }

    public func quote(category: String) async throws -> String {
        try await clock.sleep(for: delay, tolerance: nil)
        guard let quotes = Self.quotes[category], !quotes.isEmpty else { throw Failure(category: category) }
        let index = served.withLock { served in
            defer { served[category, default: 0] += 1 }
            return served[category, default: 0] % quotes.count
        }
        return quotes[index]
    }
}
