import Synchronization

/// A scripted stand-in for one service call that records what it was asked.
///
/// Wrap it in the app's service protocol:
/// ```swift
/// struct MockQuotes: QuoteService {
///     let mock = MockService<String, String> { _ in "Stay hungry." }
///     func quote(category: String) async throws -> String { try await mock(category) }
/// }
/// ```
public final class MockService<Request: Sendable, Response: Sendable>: Sendable {
    private let respond: @Sendable (Request) async throws -> Response
    private let recorded = Mutex<[Request]>([])

    /// A mock answering with `respond`.
    public init(_ respond: @escaping @Sendable (Request) async throws -> Response) {
        self.respond = respond
    }

    /// Records `request` and answers it.
    public func callAsFunction(_ request: Request) async throws -> Response {
        recorded.withLock { $0.append(request) }
        return try await respond(request)
    }

    /// Every request so far, in order.
    public var calls: [Request] { recorded.withLock { $0 } }
}
