import ReMVVM

/// The quote card: loading, then the text or the error.
public struct QuoteViewModel: ViewModel {
    /// Whether a load is in flight.
    public let loading: Bool
    /// The loaded quote.
    public let text: String?
    /// Why loading failed.
    public let error: String?

    /// Projects the quote substate.
    public init(_ quote: QuoteState) {
        loading = quote.loading
        text = quote.text
        error = quote.error
    }
}
