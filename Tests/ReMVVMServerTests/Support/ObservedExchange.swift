/// One (method, route, status) a test saw, which the OpenAPI description must document.
struct ObservedExchange: Hashable, Sendable, CustomStringConvertible {
    /// The request method.
    let method: String
    /// The route as the OpenAPI description names it (`/v1/sessions/{id}/poll`).
    let route: String
    /// The status the server answered with.
    let status: Int

    var description: String { "\(method) \(route) -> \(status)" }
}
