import ExampleApp
@_spi(ReMVVMServer) import ReMVVM

/// Holds every `test/hold` dispatch at a gate, keeping its request in flight until the test opens it.
///
/// It blocks the libmicrohttpd worker thread that runs the dispatch, on purpose: the test server has two, so
/// the other one answers the requests the test sends meanwhile (on new connections).
struct HoldMiddleware: ActionMiddleware {
    typealias State = AppState

    let gate: Gate

    func handle(_ action: HoldAction, context: inout MiddlewareContext<AppState>) -> MiddlewareResult {
        gate.pass()
        return .next(action)
    }
}
