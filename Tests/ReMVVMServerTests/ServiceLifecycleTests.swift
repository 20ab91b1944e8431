import HTTPTestClient
import Logging
import ReMVVM
import ReMVVMJSON
import ReMVVMServer
import ServiceLifecycle
import Testing

extension EndToEnd {
    /// `StoreServer` as a swift-service-lifecycle `Service`: it serves while `run()` runs, and a graceful shutdown
    /// or a cancellation stops it as `stop()` does.
    @Suite("The server as a Service")
    struct ServiceLifecycleTests {
        static let quiet = Logger(label: "remvvm.test") { _ in SwiftLogNoOpLogHandler() }

        func makeServer() -> StoreServer {
            StoreServer(TestApp.definition(), configuration: TestServer.configuration, logger: Self.quiet)
        }

        /// Waits for `run()` to listen: a bounded wait for a real event.
        func listeningPort(_ server: StoreServer) async throws -> UInt16 {
            #expect(await eventually { server.port != 0 }, "run() never started the server")
            return server.port
        }

        @Test func aGracefulShutdownOfTheGroupAnswersAParkedPollWithItsCursorAndRunReturns() async throws {
            let server = makeServer()
            let group = ServiceGroup(services: [server], logger: Self.quiet)
            let port = try await withThrowingTaskGroup { tasks in
                tasks.addTask { try await group.run() }
                let port = try await listeningPort(server)
                let api = try APIClient(port: port, log: ExchangeLog())
                let session = try await api.createSession()
                let poll = try await api.startPoll(session, query: "?views=counter&since=\(session.version)&wait=30s")
                #expect(try await eventually { try await api.gauge("remvvm_parked_polls") == 1 })

                await group.triggerGracefulShutdown()
                let response = try await poll.response()
                #expect(response.status == 200)
                let body = try response.json()
                #expect(body["from"]?.stringValue == session.version)
                #expect(body["to"]?.stringValue == session.version)
                try await tasks.next()  // run() returned, so the group did.
                return port
            }
            #expect(throws: (any Error).self, "nothing listens after run() returned") {
                try TestHTTPClient(port: port).request("GET", "/healthz")
            }
        }

        @Test func cancellingTheTaskStopsTheServer() async throws {
            let server = makeServer()
            let running = Task { try await server.run() }
            let port = try await listeningPort(server)
            let api = try APIClient(port: port, log: ExchangeLog())
            _ = try await api.createSession()
            #expect(server.sessionCount == 1)

            running.cancel()
            try await running.value
            #expect(throws: (any Error).self, "nothing listens after run() returned") {
                try TestHTTPClient(port: port).request("GET", "/healthz")
            }
        }

        @Test func runUsesAServerAlreadyStartedAndAServerServesOnce() async throws {
            let server = makeServer()
            try server.start()
            let port = server.port
            let running = Task { try await server.run() }
            #expect(try TestHTTPClient(port: port).request("GET", "/healthz").status == 200)
            running.cancel()
            try await running.value
            #expect(throws: StoreServerError.alreadyStarted) { try server.start() }
        }

        @Test func aPortInUseIsAStoreServerError() async throws {
            let first = makeServer()
            try first.start()
            defer { first.stop() }
            var configuration = TestServer.configuration
            configuration.port = first.port
            let second = StoreServer(TestApp.definition(), configuration: configuration, logger: Self.quiet)
            let error = #expect(throws: StoreServerError.addressInUse) { try second.start() }
            #expect(error?.description.contains("\(first.port)") == true, "\(String(describing: error))")
        }
    }
}
