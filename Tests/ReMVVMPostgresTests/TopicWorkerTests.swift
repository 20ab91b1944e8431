import ExampleApp
import Foundation
import HTTPTestClient
import PostgresTestSupport
@_spi(ReMVVMServer) import ReMVVM
import ReMVVMPersistence
import Synchronization
import Testing

@testable import ReMVVMPostgres
@testable import ReMVVMServer

/// Joining a room reads the room's history from the shared topic log: that read runs on the server's own
/// threads, never on the HTTP worker that answered the join, so a slow database stalls no other request.
@Suite(.enabled(if: TestDatabase.baseURL != nil, Comment(rawValue: TestDatabase.whyDisabled)), .serialized)
final class TopicWorkerTests {
    let database: TestDatabase

    init() throws {
        database = try TestDatabase()
    }

    @Test func aJoinWhoseTopicLogTakesTwoSecondsHoldsNoWorker() async throws {
        // One HTTP worker: the join and the other session's read share it.
        let (node, storage) = try Node.startSlow("node-a", on: database, threads: 1)
        try await database.waitForTopicListeners(1)
        let setup = try node.client()
        let ada = try setup.createSession()
        let bob = try setup.createSession()
        storage.delayTopicReads(.seconds(2))
        let clock = ContinuousClock()
        async let joined = onOwnThread {
            let joiner = try node.client(timeout: .seconds(10))
            let start = clock.now
            try joiner.chat(ada, .join("lobby", as: "Ada"))
            return clock.now - start
        }
        try await Task.sleep(for: .milliseconds(200))
        let (read, readIn) = try await onOwnThread {
            let reader = try node.client(timeout: .seconds(10))
            let start = clock.now
            let response = try reader.read(bob)
            return (response.status, clock.now - start)
        }
        let joinedIn = try await joined
        #expect(read == 200)
        #expect(storage.topicReads >= 1, "the join read the room's history from the topic log")
        #expect(readIn < .seconds(1), "another session's read on the same worker waited \(readIn)")
        #expect(joinedIn < .seconds(1), "the join itself was answered after \(joinedIn)")
        // The subscription still happens: a post in the room reaches Ada once the log has answered.
        storage.delayTopicReads(.zero)
        try setup.chat(ada, .post("hello"))
        let watcher = try node.client()
        let deadline = clock.now + .seconds(10)
        while try watcher.lines(ada) != ["Ada: hello"], clock.now < deadline {
            try await Task.sleep(for: .milliseconds(20))
        }
        #expect(try watcher.lines(ada) == ["Ada: hello"])
        try await node.stop()
    }
}
