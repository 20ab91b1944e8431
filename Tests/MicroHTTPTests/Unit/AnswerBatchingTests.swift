import CAnswerBatching
import CMicroHTTPD
import Glibc
import Testing

/// The hook that holds a pass's answers back (`CAnswerBatching`), on a real loopback TCP connection.
@Suite("Answer batching")
struct AnswerBatchingTests {
    @Test func theProcessEpollWaitIsTheHook() {
        // What libmicrohttpd's calls resolve to: if this fails, servers run with batching off.
        #expect(answer_batching_is_active() == 1)
    }

    @Test func heldBytesLeaveWhenTheHoldingThreadNextWaits() throws {
        try LoopbackPair.with { server, client in
            #expect(answer_batching_hold(server) == 1)
            #expect(answer_batching_held_count() == 1)
            let message = Array("held answer".utf8)
            #expect(message.withUnsafeBytes { send(server, $0.baseAddress, $0.count, 0) } == message.count)
            #expect(!LoopbackPair.isReadable(client, waitingMilliseconds: 0), "corked bytes must not leave yet")

            waitForNothing()

            #expect(answer_batching_held_count() == 0)
            #expect(LoopbackPair.isReadable(client, waitingMilliseconds: 5_000))
            var received = [UInt8](repeating: 0, count: 64)
            let count = received.withUnsafeMutableBytes { recv(client, $0.baseAddress, $0.count, 0) }
            #expect(Array(received.prefix(max(count, 0))) == message)
        }
    }

    @Test func aSecondHoldOfTheSameSocketInOnePassIsOneEntry() throws {
        try LoopbackPair.with { server, _ in
            #expect(answer_batching_hold(server) == 1)
            #expect(answer_batching_hold(server) == 1)  // Pipelined requests on one connection.
            #expect(answer_batching_held_count() == 1)
            waitForNothing()
            #expect(answer_batching_held_count() == 0)
        }
    }

    /// One `epoll_wait` with nothing to report, as a worker makes between passes: what matters is the release.
    private func waitForNothing() {
        let epoll = epoll_create1(0)
        defer { close(epoll) }
        var event = epoll_event()
        #expect(epoll_wait(epoll, &event, 1, 0) == 0)
    }

    @Test func aDescriptorThatIsNotATCPSocketIsNotHeld() throws {
        var pipeEnds: [Int32] = [0, 0]
        #expect(pipe(&pipeEnds) == 0)
        defer {
            close(pipeEnds[0])
            close(pipeEnds[1])
        }
        #expect(answer_batching_hold(pipeEnds[1]) == 0)
        #expect(answer_batching_hold(-1) == 0)
        #expect(answer_batching_held_count() == 0)
    }
}

/// A connected pair of loopback TCP sockets: the accepted end (the server's) and the connecting end.
private enum LoopbackPair {
    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    /// Runs `body` with a fresh pair, closing both ends afterwards.
    static func with(_ body: (_ server: Int32, _ client: Int32) throws -> Void) throws {
        let (server, client) = try make()
        defer {
            close(server)
            close(client)
        }
        try body(server, client)
    }

    private static func make() throws -> (server: Int32, client: Int32) {
        let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard listener >= 0 else { throw Failure(description: "socket: errno \(errno)") }
        defer { close(listener) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { pointer in
                bind(listener, pointer, length) == 0 && listen(listener, 1) == 0
                    && getsockname(listener, pointer, &length) == 0
            }
        }
        guard bound else { throw Failure(description: "bind/listen: errno \(errno)") }
        let client = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(client, $0, length) == 0 }
        }
        guard client >= 0, connected else { throw Failure(description: "connect: errno \(errno)") }
        let server = accept(listener, nil, nil)
        guard server >= 0 else {
            close(client)
            throw Failure(description: "accept: errno \(errno)")
        }
        return (server, client)
    }

    static func isReadable(_ socket: Int32, waitingMilliseconds: Int32) -> Bool {
        var entry = pollfd(fd: socket, events: Int16(POLLIN), revents: 0)
        return poll(&entry, 1, waitingMilliseconds) == 1 && entry.revents & Int16(POLLIN) != 0
    }
}
