import ReMVVM

/// Loads a quote as an effect: the reducer marks it loading, the effect dispatches the result.
public struct QuoteMiddleware: ActionMiddleware {
    public typealias State = AppState

    /// Loads quotes through the injected ``QuoteService``.
    public init() {}

    public func handle(_ action: QuoteAction.Load, context: inout MiddlewareContext<AppState>) -> MiddlewareResult {
        let category = action.category ?? "wisdom"
        context.run(id: "quote") { effect in
            do {
                let text = try await effect.services.quotes.quote(category: category)
                effect.dispatch(QuoteAction.Loaded(text: text))
            } catch is CancellationError {
                throw CancellationError()
            } catch {
                effect.dispatch(QuoteAction.Failed(reason: "\(error)"))
            }
        }
        return .next(action)
    }
}
