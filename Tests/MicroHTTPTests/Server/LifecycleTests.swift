import Glibc
import HTTPTestClient
import MicroHTTP
import Testing

@Suite("Server lifecycle")
struct LifecycleTests {
    @Test func portZeroBindsAnEphemeralPortAndStopIsIdempotent() throws {
        let server = HTTPServer(
            configuration: HTTPServerConfiguration(port: 0),
            handler: ClosureHandler { _, responder in responder.respond(.text("hi")) })
        try server.start()
        #expect(server.port != 0)
        #expect(try TestHTTPClient(port: server.port).request("GET", "/").text == "hi")
        server.stop()
        server.stop()
        #expect(server.openConnections == 0)
        #expect(throws: HTTPServerError.alreadyStarted) { try server.start() }
    }

    /// The transport's own threads carry names of their own in `/proc` (and so in `top -H` and `perf`), instead
    /// of the name of whichever thread started them.
    @Test func theWorkerAndDisconnectThreadsAreNamed() throws {
        try withServer(handler: { _, responder in responder.respond(.text("")) }) { _ in
            // A thread names itself as it starts, which may be just after the server's start returned.
            var names = Self.threadNames()
            let deadline = ContinuousClock.now + .seconds(5)
            while !(names.contains("remvvm-http-0") && names.contains("remvvm-watch")) && ContinuousClock.now < deadline
            {
                usleep(1_000)
                names = Self.threadNames()
            }
            #expect(names.contains("remvvm-http-0"), "threads: \(names)")
            #expect(names.contains("remvvm-watch"), "threads: \(names)")
        }
    }

    /// The names of this process's threads, from `/proc/self/task/*/comm`.
    private static func threadNames() -> [String] {
        guard let tasks = opendir("/proc/self/task") else { return [] }
        defer { closedir(tasks) }
        var names: [String] = []
        while let entry = readdir(tasks) {
            let task = withUnsafeBytes(of: entry.pointee.d_name) {
                String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self)
            }
            guard task.first?.isNumber == true, let file = fopen("/proc/self/task/\(task)/comm", "r") else { continue }
            defer { fclose(file) }
            var line = [CChar](repeating: 0, count: 64)
            if fgets(&line, Int32(line.count), file) != nil {
                names.append(String(decoding: line.prefix { $0 != 0 && $0 != 10 }.map(UInt8.init), as: UTF8.self))
            }
        }
        return names
    }

    @Test func secondServerOnTheSamePortFailsWithAddressInUse() throws {
        try withServer(handler: { _, responder in responder.respond(.text("")) }) { server in
            let second = HTTPServer(
                configuration: HTTPServerConfiguration(port: server.port),
                handler: ClosureHandler { _, _ in })
            let error = #expect(throws: HTTPServerError.self) { try second.start() }
            #expect(error == .addressInUse)
            #expect(error?.description.contains("\(server.port)") == true)
        }
    }

    @Test func hostThatIsNotIPv4IsRejected() {
        let server = HTTPServer(
            configuration: HTTPServerConfiguration(host: "example.org", port: 0), handler: ClosureHandler { _, _ in })
        #expect(throws: HTTPServerError.invalidConfiguration) { try server.start() }
    }

    @Test func connectionMemoryTooSmallToAnswerIsRejected() throws {
        var configuration = HTTPServerConfiguration(host: "127.0.0.1", port: 0)
        configuration.connectionMemoryLimit = 4095
        let small = HTTPServer(configuration: configuration, handler: ClosureHandler { _, _ in })
        let error = #expect(throws: HTTPServerError.self) { try small.start() }
        #expect(error == .invalidConfiguration)
        #expect(error?.description.contains("at least 4096") == true)
        configuration.connectionMemoryLimit = 4096
        let smallest = HTTPServer(
            configuration: configuration, handler: ClosureHandler { _, responder in responder.respond(.text("ok")) })
        try smallest.start()
        defer { smallest.stop() }
        let response = try TestHTTPClient(port: smallest.port).request(
            "GET", "/", headers: [("User-Agent", String(repeating: "u", count: 1_000))])
        #expect(response.status == 200)
    }

    @Test func stopAnswersParkedRequestsAndEndsThem() throws {
        let ended = Shared(0)
        let server = HTTPServer(
            configuration: HTTPServerConfiguration(port: 0),
            handler: ClosureHandler { _, responder in responder.onTermination { ended.update { $0 += 1 } } })
        try server.start()
        let clients = try (0..<20).map { _ in try TestHTTPClient(port: server.port) }
        for client in clients {
            try client.sendRequest("GET", "/poll")
        }
        #expect(eventually { server.suspendedConnections == 20 })
        let clock = ContinuousClock()
        let elapsed = clock.measure { server.stop() }
        #expect(elapsed < .seconds(2))
        #expect(ended.value == 20)
        for client in clients {
            let response = try client.readResponse()
            #expect(response.status == 503)
            #expect(response.header("Content-Type") == "application/problem+json")
        }
        #expect(throws: (any Error).self) { try TestHTTPClient(port: server.port).request("GET", "/") }
    }

    @Test func stopFinishesOpenStreams() throws {
        let server = HTTPServer(
            configuration: HTTPServerConfiguration(port: 0),
            handler: ClosureHandler { _, responder in
                let stream = ResponseStream()
                stream.write(Array("first".utf8))
                responder.respond(HTTPResponse(status: 200, body: .stream(stream)))
            })
        try server.start()
        let client = try TestHTTPClient(port: server.port)
        try client.sendRequest("GET", "/events")
        _ = try client.readHead()
        #expect(try client.readChunk() == Array("first".utf8))
        #expect(eventually { server.suspendedConnections == 1 })
        server.stop()
        #expect(try client.readChunk() == nil)
    }

    @Test func fileBodyIsServedAndAMissingFileIs404() throws {
        let path = "/tmp/microhttp-test-\(getpid())-\(UInt32.random(in: 0...UInt32.max)).txt"
        let contents = Array(String(repeating: "file contents\n", count: 1000).utf8)
        let file = try #require(fopen(path, "w"))
        #expect(fwrite(contents, 1, contents.count, file) == contents.count)
        fclose(file)
        defer { unlink(path) }
        try withServer(handler: { request, responder in
            let target = request.path == "/present" ? path : path + ".missing"
            responder.respond(
                HTTPResponse(
                    status: 200, headers: ["Content-Type": "text/plain"],
                    body: .file(path: target, size: contents.count)))
        }) { server in
            let client = try TestHTTPClient(port: server.port)
            let present = try client.request("GET", "/present")
            #expect(present.status == 200)
            #expect(present.body == contents)
            #expect(present.header("Content-Type") == "text/plain")
            let missing = try client.request("GET", "/missing")
            #expect(missing.status == 404)
            #expect(missing.header("Content-Type") == "application/problem+json")
            #expect(try client.request("HEAD", "/present").header("Content-Length") == "\(contents.count)")
        }
    }
}
