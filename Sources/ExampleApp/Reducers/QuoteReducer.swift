import ReMVVM

/// The quote substate's reducers: loading, then the text or the error.
enum QuoteReducer {
    static let reducer = AnyReducer<QuoteState>(
        .on(QuoteAction.Load.self) { state, _ in state.loading = true },
        .on(QuoteAction.Loaded.self) { state, action in
            state = QuoteState()
            state.text = action.text
        },
        .on(QuoteAction.Failed.self) { state, action in
            state = QuoteState()
            state.error = action.reason
        }
    )
}
