import Foundation

/// Runs blocking work (socket reads, sleeps) on a new thread of its own and waits for it without blocking.
///
/// Swift concurrency has only as many cooperative threads as the machine has cores; a test that blocked one in a
/// socket read could starve the server's own tasks (the store's effects) and make timing assertions
/// fail. `body` must end by itself: every read in ``TestHTTPClient`` has a timeout.
public func onOwnThread<Result: Sendable>(
    _ body: @escaping @Sendable () throws -> Result
) async throws -> Result {
    try await withCheckedThrowingContinuation { continuation in
        let thread = Thread {
            do {
                continuation.resume(returning: try body())
            } catch {
                continuation.resume(throwing: error)
            }
        }
        thread.name = "test-client"
        thread.start()
    }
}
