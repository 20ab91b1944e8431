import ReMVVM

extension ExampleApp {
    /// Resumes a session restored after a restart: a restore replays the reducers only, so a
    /// quote that was still loading lost its effect with the old process and is loaded again.
    public static func restore(_ store: Store<AppState>) {
        guard store.state.quote.loading else { return }
        // Only a closed store refuses, and a closed session needs no quote.
        _ = try? store.dispatch(QuoteAction.Load())
    }
}
