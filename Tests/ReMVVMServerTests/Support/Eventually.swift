/// Checks `condition` every 10 ms until it holds or `timeout` has passed; returns whether it held.
///
/// The default is generous: it is only spent when a test fails, and other test targets' blocking tests can hold
/// Swift concurrency's few threads (and so the server's effects) for seconds on a busy two-core machine.
func eventually(
    timeout: Duration = .seconds(10),
    _ condition: () async throws -> Bool
) async rethrows -> Bool {
    let clock = ContinuousClock()
    let end = clock.now.advanced(by: timeout)
    while try await !condition() {
        guard clock.now < end else { return false }
        try? await Task.sleep(for: .milliseconds(10))
    }
    return true
}
