import ExampleApp
import Synchronization

/// A quote service that never answers by itself, and notes when its caller cancels it: shows that ending a
/// session cancels the effects it started.
final class HangingQuoteService: QuoteService {
    private let state = Mutex((started: 0, cancelled: 0))

    /// How many loads began.
    var started: Int { state.withLock { $0.started } }
    /// How many loads were cancelled.
    var cancelled: Int { state.withLock { $0.cancelled } }

    func quote(category: String) async throws -> String {
        state.withLock { $0.started += 1 }
        do {
            try await Task.sleep(for: .seconds(30))
        } catch {
            state.withLock { $0.cancelled += 1 }
            throw error
        }
        return "too late"
    }
}
