import CAnswerBatching
import CMicroHTTPD
import Foundation
import Glibc
import Testing

/// The hook that holds a pass's answers back (`CAnswerBatching`), on a real loopback TCP connection.
@Suite("Answer batching")
struct AnswerBatchingTests {
    @Test func theProcessEpollWaitSendsAndCloseAreTheHooks() {
        // What libmicrohttpd's calls resolve to: if this fails, servers run with batching off.
        #expect(answer_batching_is_active() == 1)
    }

    @Test func releasesInOneCallWhereverTheKernelOffersIt() throws {
        // The probe must not report "unavailable" where the kernel has io_uring's socket commands (Linux 6.7)
        // and nothing forbids io_uring: otherwise every other test here passes with the one-call release gone.
        let kernel = try String(contentsOfFile: "/proc/sys/kernel/osrelease", encoding: .utf8)
        let version = kernel.split(whereSeparator: { !$0.isNumber }).prefix(2).compactMap { Int($0) }
        let disabled = (try? String(contentsOfFile: "/proc/sys/kernel/io_uring_disabled", encoding: .utf8)) ?? "0"
        let status = try String(contentsOfFile: "/proc/self/status", encoding: .utf8)
        let filtered = status.split(separator: "\n").contains { $0.hasPrefix("Seccomp:") && !$0.hasSuffix("0") }
        guard version.count == 2, disabled.trimmingCharacters(in: .whitespacesAndNewlines) == "0", !filtered else {
            return  // A filter or a sysctl may forbid it: nothing to expect either way.
        }
        let offered = version[0] > 6 || (version[0] == 6 && version[1] >= 7)
        #expect((answer_batching_can_release_in_one_call() == 1) == offered, "Linux \(kernel)")
    }

    @Test func heldBytesLeaveWhenTheHoldingThreadNextWaits() throws {
        try LoopbackPair.with { server, client in
            #expect(answer_batching_hold(server, 0) == 1)
            #expect(answer_batching_held_count() == 1)
            let message = Array("held answer".utf8)
            #expect(message.withUnsafeBytes { send(server, $0.baseAddress, $0.count, 0) } == message.count)
            #expect(!LoopbackPair.isReadable(client, waitingMilliseconds: 0), "corked bytes must not leave yet")

            waitForNothing()

            #expect(answer_batching_held_count() == 0)
            #expect(LoopbackPair.isReadable(client, waitingMilliseconds: 100))
            var received = [UInt8](repeating: 0, count: 64)
            let count = received.withUnsafeMutableBytes { recv(client, $0.baseAddress, $0.count, 0) }
            #expect(Array(received.prefix(max(count, 0))) == message)
        }
    }

    @Test func aSecondHoldOfTheSameSocketInOnePassIsOneEntry() throws {
        try LoopbackPair.with { server, _ in
            #expect(answer_batching_hold(server, 1) == 1)
            #expect(answer_batching_hold(server, 1) == 1)  // Pipelined requests on one connection.
            #expect(answer_batching_held_count() == 1)
            waitForNothing()
            #expect(answer_batching_held_count() == 0)
        }
    }

    @Test(arguments: [false, true])
    func aPassOfHeldSocketsLeavesTogether(inOneCall: Bool) throws {
        try LoopbackPair.with(count: 4) { pairs in
            let releasesBefore = answer_batching_one_call_releases()
            for (index, pair) in pairs.enumerated() {
                #expect(answer_batching_hold(pair.server, inOneCall ? 1 : 0) == 1)
                let message = Array("answer \(index)".utf8)
                #expect(message.withUnsafeBytes { send(pair.server, $0.baseAddress, $0.count, 0) } == message.count)
            }
            #expect(answer_batching_held_count() == pairs.count)
            #expect(!pairs.contains { LoopbackPair.isReadable($0.client, waitingMilliseconds: 0) })

            waitForNothing()

            #expect(answer_batching_held_count() == 0)
            for (index, pair) in pairs.enumerated() {
                #expect(LoopbackPair.isReadable(pair.client, waitingMilliseconds: 100))
                #expect(LoopbackPair.receive(pair.client) == Array("answer \(index)".utf8))
            }
            // Through io_uring only where the kernel takes its socket commands; one by one otherwise.
            let oneCall = inOneCall && answer_batching_can_release_in_one_call() == 1
            #expect(answer_batching_one_call_releases() - releasesBefore == (oneCall ? 1 : 0))
        }
    }

    @Test func aHeldDescriptorClosedBeforeTheReleaseDoesNotKeepTheOthersBack() throws {
        try LoopbackPair.with(count: 3) { pairs in
            // The middle one is held through a descriptor of its own that is then closed, as when
            // libmicrohttpd closes a connection during the pass (its release then fails on that number).
            let duplicate = dup(pairs[1].server)
            #expect(duplicate >= 0)
            for (index, pair) in pairs.enumerated() {
                #expect(answer_batching_hold(index == 1 ? duplicate : pair.server, 1) == 1)
                #expect([UInt8(ascii: "x")].withUnsafeBytes { send(pair.server, $0.baseAddress, 1, 0) } == 1)
            }
            #expect(close(duplicate) == 0)
            let oneCall = answer_batching_can_release_in_one_call() == 1
            let releasesBefore = answer_batching_one_call_releases()

            waitForNothing()  // Its epoll descriptor may well take the closed number.

            #expect(answer_batching_held_count() == 0)
            for pair in [pairs[0], pairs[2]] {
                #expect(LoopbackPair.isReadable(pair.client, waitingMilliseconds: 100))
                #expect(LoopbackPair.receive(pair.client) == [UInt8(ascii: "x")])
            }
            // One failed command is that socket's problem: the next pass still goes out in one call.
            for pair in [pairs[0], pairs[2]] {
                #expect(answer_batching_hold(pair.server, 1) == 1)
                #expect([UInt8(ascii: "y")].withUnsafeBytes { send(pair.server, $0.baseAddress, 1, 0) } == 1)
            }
            waitForNothing()
            for pair in [pairs[0], pairs[2]] {
                #expect(LoopbackPair.isReadable(pair.client, waitingMilliseconds: 100))
                #expect(LoopbackPair.receive(pair.client) == [UInt8(ascii: "y")])
            }
            #expect(answer_batching_one_call_releases() - releasesBefore == (oneCall ? 2 : 0))
        }
    }

    /// One `epoll_wait` with nothing to report, as a worker makes between passes: what matters is the release.
    private func waitForNothing() {
        let epoll = epoll_create1(0)
        defer { close(epoll) }
        var event = epoll_event()
        #expect(epoll_wait(epoll, &event, 1, 0) == 0)
    }

    @Test func aNegativeDescriptorIsNotHeld() {
        #expect(answer_batching_hold(-1, 1) == 0)
        #expect(answer_batching_held_count() == 0)
    }

    @Test func aSocketTheThreadDoesNotHoldSendsAtOnce() throws {
        try LoopbackPair.with(count: 2) { pairs in
            #expect(answer_batching_hold(pairs[0].server, 1) == 1)
            #expect([UInt8(ascii: "h")].withUnsafeBytes { send(pairs[0].server, $0.baseAddress, 1, 0) } == 1)
            #expect([UInt8(ascii: "f")].withUnsafeBytes { send(pairs[1].server, $0.baseAddress, 1, 0) } == 1)
            #expect(!LoopbackPair.isReadable(pairs[0].client, waitingMilliseconds: 0))
            #expect(LoopbackPair.isReadable(pairs[1].client, waitingMilliseconds: 100), "not held, so not delayed")
            waitForNothing()
            #expect(LoopbackPair.receive(pairs[0].client) == [UInt8(ascii: "h")])
        }
    }

    @Test func anotherThreadsSendsOnAHeldSocketAreNotDelayed() throws {
        try LoopbackPair.with { server, client in
            #expect(answer_batching_hold(server, 1) == 1)
            let sender = Thread {
                _ = [UInt8(ascii: "o")].withUnsafeBytes { send(server, $0.baseAddress, 1, 0) }
            }
            sender.start()
            #expect(LoopbackPair.isReadable(client, waitingMilliseconds: 1000), "the hold is the holding thread's")
            #expect(LoopbackPair.receive(client) == [UInt8(ascii: "o")])
            waitForNothing()
        }
    }

    @Test func aHeldSocketThatIsClosedLeavesTheListAndItsBytesLeave() throws {
        try LoopbackPair.with(count: 2) { pairs in
            // A copy of the descriptor stands in for the connection libmicrohttpd closes during the pass.
            let held = dup(pairs[0].server)
            #expect(held >= 0)
            #expect(answer_batching_hold(held, 1) == 1)
            #expect(answer_batching_hold(pairs[1].server, 1) == 1)
            #expect(Array("closing".utf8).withUnsafeBytes { send(held, $0.baseAddress, $0.count, 0) } == 7)
            #expect(!LoopbackPair.isReadable(pairs[0].client, waitingMilliseconds: 0))
            #expect(close(held) == 0)
            #expect(answer_batching_held_count() == 1, "a closed descriptor is no longer held")

            // Whatever socket takes the number next is not held; here the same socket, through its other
            // descriptor: a send without MSG_MORE pushes what was queued before it.
            #expect([UInt8(ascii: "!")].withUnsafeBytes { send(pairs[0].server, $0.baseAddress, 1, 0) } == 1)
            #expect(LoopbackPair.isReadable(pairs[0].client, waitingMilliseconds: 100))
            #expect(String(decoding: LoopbackPair.receive(pairs[0].client), as: UTF8.self).hasPrefix("closing"))
            waitForNothing()
            #expect(answer_batching_held_count() == 0)
        }
    }
}

/// A connected pair of loopback TCP sockets: the accepted end (the server's) and the connecting end.
private enum LoopbackPair {
    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    /// Runs `body` with a fresh pair, closing both ends afterwards.
    static func with(_ body: (_ server: Int32, _ client: Int32) throws -> Void) throws {
        try with(count: 1) { pairs in try body(pairs[0].server, pairs[0].client) }
    }

    /// Runs `body` with `count` fresh pairs, closing every end afterwards.
    static func with(count: Int, _ body: ([(server: Int32, client: Int32)]) throws -> Void) throws {
        var pairs: [(server: Int32, client: Int32)] = []
        defer {
            for pair in pairs {
                close(pair.server)
                close(pair.client)
            }
        }
        for _ in 0..<count { pairs.append(try make()) }
        try body(pairs)
    }

    /// What one `recv` reads, at most 64 bytes.
    static func receive(_ socket: Int32) -> [UInt8] {
        var received = [UInt8](repeating: 0, count: 64)
        let count = received.withUnsafeMutableBytes { recv(socket, $0.baseAddress, $0.count, 0) }
        return Array(received.prefix(max(count, 0)))
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
