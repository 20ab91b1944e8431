/// A response as the test client parsed it.
public struct TestResponse: Sendable {
    /// The status code.
    public var status: Int
    /// The header fields in the order they arrived.
    public var headers: [(name: String, value: String)]
    /// The whole body (de-chunked).
    public var body: [UInt8]
    /// When the last byte of the response was read, so tests can measure latency without the scheduler's delays.
    public var receivedAt: ContinuousClock.Instant

    /// A response with these parts, received now unless told otherwise.
    public init(
        status: Int,
        headers: [(name: String, value: String)],
        body: [UInt8],
        receivedAt: ContinuousClock.Instant = .now
    ) {
        self.status = status
        self.headers = headers
        self.body = body
        self.receivedAt = receivedAt
    }

    /// The first value of header `name`, any case.
    public func header(_ name: String) -> String? {
        headers.first { $0.name.lowercased() == name.lowercased() }?.value
    }

    /// Every value of header `name`, any case, in order.
    public func headerValues(_ name: String) -> [String] {
        headers.filter { $0.name.lowercased() == name.lowercased() }.map(\.value)
    }

    /// The body as UTF-8 text.
    public var text: String { String(decoding: body, as: UTF8.self) }
}
