import ReMVVM

/// Loading a quote through the injected ``QuoteService``.
public enum QuoteAction {
    /// Starts loading a quote; ``QuoteMiddleware`` runs the effect.
    public struct Load: StoreAction, Equatable {
        public static let wireName = "quote/load"
        /// The category to load from (`wisdom` when absent).
        public var category: String?
        /// Loads a quote from `category`.
        public init(category: String? = nil) { self.category = category }
    }

    /// The effect's success.
    public struct Loaded: StoreAction, Equatable {
        public static let wireName = "quote/loaded"
        /// The quote.
        public var text: String
        /// A loaded quote.
        public init(text: String) { self.text = text }
    }

    /// The effect's failure.
    public struct Failed: StoreAction, Equatable {
        public static let wireName = "quote/failed"
        /// Why it failed.
        public var reason: String
        /// A failed load.
        public init(reason: String) { self.reason = reason }
    }
}
