/// The quote the app loads asynchronously.
public struct QuoteState: Codable, Equatable, Sendable {
    /// Whether a load is in flight.
    public var loading = false
    /// The last quote loaded.
    public var text: String?
    /// Why the last load failed.
    public var error: String?

    /// Nothing loaded yet.
    public init() {}
}
