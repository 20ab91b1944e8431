import ExampleApp
import HTTPTestClient
import Logging
@_spi(ReMVVMServer) import ReMVVM
import Testing

@testable import ReMVVMServer

/// A real ``StoreServer`` on 127.0.0.1 at an ephemeral port, serving the repository's `public/` folder.
struct TestServer: Sendable {
    let server: StoreServer
    /// What the test observed, checked against the OpenAPI description when the test ends.
    let log: ExchangeLog
    /// How long a client's read waits for the server.
    var clientTimeout: Duration = .seconds(5)

    var port: UInt16 { server.port }

    /// A client on a new connection, from the local address `source` when given (`127.0.0.2`, ...).
    func client(from source: String? = nil) throws -> APIClient {
        try APIClient(port: port, log: log, from: source, timeout: clientTimeout)
    }

    /// Stops the server on a thread of its own (it joins libmicrohttpd's threads).
    func stop() async throws {
        try await onOwnThread { [server] in server.stop() }
    }

    /// A configuration for tests: an ephemeral port, the repository's `public/`, two worker threads.
    static var configuration: ServerConfiguration {
        var configuration = ServerConfiguration()
        configuration.host = "127.0.0.1"
        configuration.port = 0
        configuration.publicDirectory = Repository.publicDirectory
        configuration.threads = 2
        // The tests' clients keep idle connections, which would make every stop wait the whole period; the drain
        // has tests of its own (MicroHTTP's DrainTests, and the cluster test's rolling restart).
        configuration.drainPeriod = .zero
        // Metrics into a registry of this server's own, served at `/metrics` as the executable does by default.
        MetricsBackend().serve(in: &configuration)
        // Every test client is on 127.0.0.1 and some create hundreds of sessions; the abuse suite turns the budget
        // per address back on.
        configuration.sessionCreationBurst = 0
        return configuration
    }
}

/// Starts a server for `definition` (the example app by default), runs `body`, stops the server, and checks
/// that the OpenAPI description documents every (method, route, status) the test observed.
/// With a `clock`, long-poll timeouts and housekeeping go by it (see ``ManualServerClock``).
func withTestServer(
    _ definition: StoreDefinition<AppState> = TestApp.definition(),
    clock: ManualServerClock? = nil,
    configure: (inout ServerConfiguration) -> Void = { _ in },
    _ body: (TestServer) async throws -> Void
) async throws {
    var configuration = TestServer.configuration
    configure(&configuration)
    let quiet = Logger(label: "remvvm.test") { _ in SwiftLogNoOpLogHandler() }
    let storeServer =
        if let clock {
            StoreServer(
                actions: definition.actions, makeStore: { _, _ in AnyProjectedStore(definition.makeStore()) },
                durability: nil, configuration: configuration, logger: quiet, clock: clock)
        } else {
            StoreServer(definition, configuration: configuration, logger: quiet)
        }
    let server = TestServer(server: storeServer, log: ExchangeLog())
    try server.server.start()
    do {
        try await body(server)
    } catch {
        try await server.stop()
        throw error
    }
    try await server.stop()
    let description = try OpenAPIDescription.load()
    for exchange in server.log.observed {
        #expect(description.agrees(with: exchange), "public/openapi.yaml does not document \(exchange)")
    }
}
