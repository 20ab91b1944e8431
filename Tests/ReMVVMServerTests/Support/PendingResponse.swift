import HTTPTestClient

/// A request sent on a connection of its own whose answer is read later: a parked long-poll, or a dispatch the
/// server holds.
struct PendingResponse: Sendable {
    let connection: AsyncHTTPConnection
    let method: String
    let target: String
    let log: ExchangeLog
    /// When the last byte of the request was sent.
    let sentAt: ContinuousClock.Instant

    /// Reads the answer (waiting at most the connection's timeout) and records it.
    func response() async throws -> TestResponse {
        let response = try await connection.response()
        log.record(method: method, target: target, status: response.status)
        ResponseContract.check(response, method: method, target: target)
        return response
    }
}
