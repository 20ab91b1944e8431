import ReMVVM

/// Where quotes come from: the app's one network-like service, injected so tests replace it.
public protocol QuoteService: Sendable {
    /// A quote from `category`; throws when there is none.
    func quote(category: String) async throws -> String
}

/// The ``QuoteService`` registered in ``Services``.
public enum QuoteServiceKey: ServiceKey {
    public static var defaultValue: any QuoteService { LocalQuoteService() }
}

extension Services {
    /// The quote service effects use.
    public var quotes: any QuoteService {
        get { self[QuoteServiceKey.self] }
        set { self[QuoteServiceKey.self] = newValue }
    }
}
