import ExampleApp
@_spi(ReMVVMServer) import ReMVVM

/// The example app as the end-to-end tests run it: quotes load in 50 ms instead of 300.
enum TestApp {
    /// How long the injected quote service takes.
    static let quoteDelay: Duration = .milliseconds(50)

    static var services: Services {
        Services().with(QuoteServiceKey.self, LocalQuoteService(delay: quoteDelay))
    }

    /// The example app with a fast quote service and the given store limits.
    static func definition(configuration: StoreConfiguration = StoreConfiguration()) -> StoreDefinition<AppState> {
        ExampleApp.definition(services: services, configuration: configuration)
    }

    /// The example app plus `test/hold`, which waits at `gate` inside the dispatch.
    static func holdingDefinition(gate: Gate) -> StoreDefinition<AppState> {
        StoreDefinition(
            initialState: AppState(),
            reducer: ExampleApp.reducer,
            middleware: [HoldMiddleware(gate: gate)] + ExampleApp.middleware,
            projections: ExampleApp.projections,
            clientActions: ExampleApp.clientActions + [HoldAction.self],
            services: services
        )
    }
}
