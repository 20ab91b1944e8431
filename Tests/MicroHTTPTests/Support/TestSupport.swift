import Dispatch
import Glibc

@testable import MicroHTTP

/// Starts a server on 127.0.0.1 at an ephemeral port, runs `body`, and stops the server.
func withServer(
    _ configure: (inout HTTPServerConfiguration) -> Void = { _ in },
    handler: @escaping @Sendable (HTTPRequest, Responder) -> Void,
    _ body: (HTTPServer) throws -> Void
) throws {
    var configuration = HTTPServerConfiguration(host: "127.0.0.1", port: 0)
    configure(&configuration)
    let server = HTTPServer(configuration: configuration, handler: ClosureHandler(body: handler))
    try server.start()
    defer { server.stop() }
    try body(server)
}

/// Polls `condition` every 2 ms until it holds or `timeout` passed; returns whether it held.
func eventually(timeout: Duration = .seconds(5), _ condition: () -> Bool) -> Bool {
    let clock = ContinuousClock()
    let end = clock.now.advanced(by: timeout)
    while !condition() {
        guard clock.now < end else { return false }
        usleep(2_000)
    }
    return true
}

/// Runs `body` on a new thread after `delay`, as a stand-in for the layer above answering later.
func runLater(after delay: Duration = .zero, _ body: @escaping @Sendable () -> Void) {
    let milliseconds = Int(delay.components.seconds * 1000 + delay.components.attoseconds / 1_000_000_000_000_000)
    DispatchQueue.global().asyncAfter(deadline: .now() + .milliseconds(milliseconds), execute: body)
}

extension HTTPResponse {
    /// A 200 text response.
    static func text(_ text: String, status: Int = 200) -> HTTPResponse {
        HTTPResponse(status: status, headers: ["Content-Type": "text/plain"], body: .bytes(Array(text.utf8)))
    }
}

/// A worker of a server that never starts, for values that name a connection's worker without running one.
let idleWorker: WorkerLoop = {
    let core = ServerCore(configuration: HTTPServerConfiguration(), handler: ClosureHandler { _, _ in })
    guard let worker = WorkerLoop(core: core, index: 0) else {
        preconditionFailure("the kernel refused an epoll set or an eventfd")
    }
    return worker
}()
