import ExampleApp
import Glibc
import HTTPTestClient
import Logging
@_spi(ReMVVMServer) import ReMVVM
import ReMVVMJSON
import Synchronization
import Testing

@testable import ReMVVMServer

/// The server's own threads for the fan-outs the core hands off: the pool alone, then through the real server.
@Suite("Fan-out pool")
struct FanOutPoolTests {
    /// The calling thread, to tell whether a job ran on it.
    private static var currentThread: UInt { UInt(pthread_self()) }

    @Test func aJobRunsOnAThreadOfThePoolsNotTheCallers() async throws {
        let pool = FanOutPool(threads: 1)
        #expect(pool.start())
        let ranOn = Mutex<UInt?>(nil)
        let caller = Self.currentThread
        #expect(pool.offer { ranOn.withLock { $0 = Self.currentThread } })
        #expect(await eventually { ranOn.withLock { $0 } != nil })
        #expect(ranOn.withLock { $0 } != caller)
        try await onOwnThread { pool.stop() }
    }

    @Test func aFullQueueDeclinesAJobAndItsCallerRunsIt() async throws {
        let pool = FanOutPool(threads: 1)
        #expect(pool.start())
        let gate = Gate()
        #expect(pool.offer { gate.pass(timeout: .seconds(120)) })
        #expect(await eventually { gate.arrived == 1 })  // The one thread is busy; the queue is empty.
        let ran = Atomic<Int>(0)
        for _ in 0..<FanOutPool.queueLimit {
            #expect(pool.offer { ran.add(1, ordering: .relaxed) })
        }
        #expect(!pool.offer { Issue.record("a declined job ran on the pool") })
        #expect(pool.declinedJobs == 1)
        gate.open()
        #expect(await eventually { ran.load(ordering: .relaxed) == FanOutPool.queueLimit })
        try await onOwnThread { pool.stop() }
    }

    @Test func stopRunsWhatIsQueuedThenDeclinesEveryJobAndNoneRunsAfterIt() async throws {
        let pool = FanOutPool(threads: 2)
        #expect(pool.start())
        let gate = Gate()
        for _ in 0..<2 { #expect(pool.offer { gate.pass(timeout: .seconds(120)) }) }
        #expect(await eventually { gate.arrived == 2 })
        let ran = Atomic<Int>(0)
        for _ in 0..<10 { #expect(pool.offer { ran.add(1, ordering: .relaxed) }) }
        let stopped = Task { try await onOwnThread { pool.stop() } }
        #expect(await eventually { !pool.isRunning })
        // Stopping: a new job is declined (its caller runs it), the queued ones still wait for a thread.
        #expect(!pool.offer { Issue.record("a job offered while stopping ran on the pool") })
        #expect(ran.load(ordering: .relaxed) == 0)
        gate.open()
        try await stopped.value
        #expect(ran.load(ordering: .relaxed) == 10)
        #expect(!pool.offer { Issue.record("a job offered after the stop ran on the pool") })
        #expect(pool.acceptedJobs == 12)
        #expect(pool.declinedJobs == 2)
    }

    @Test func aPoolNotStartedDeclinesEveryJob() {
        let pool = FanOutPool(threads: 1)
        #expect(!pool.offer {})
        pool.stop()
        #expect(!pool.start(), "a stopped pool does not start")
        #expect(!pool.offer {})
    }

    @Test func theServersPoolStartsAndStopsWithIt() async throws {
        let quiet = Logger(label: "remvvm.test") { _ in SwiftLogNoOpLogHandler() }
        let server = StoreServer(TestApp.definition(), configuration: TestServer.configuration, logger: quiet)
        #expect(!server.pool.isRunning)
        try server.start()
        #expect(server.pool.isRunning)
        try await onOwnThread { server.stop() }
        #expect(!server.pool.isRunning)
        #expect(!server.pool.offer { Issue.record("a job ran on the pool of a stopped server") })
    }
}

extension EndToEnd {
    /// Large fan-outs over HTTP run on the server's fan-out pool, not on the dispatching worker or libdispatch.
    @Suite("Fan-outs on the server's own threads")
    struct FanOutTests {
        @Test func aDispatchWakingMoreThan64LongPollsHandsThemToThePoolAndAllAreAnswered() async throws {
            try await withTestServer { server in
                let api = try server.client()
                let session = try await api.createSession()
                let count = 90
                var polls: [PendingResponse] = []
                for _ in 0..<count {
                    polls.append(try await api.startPoll(session, query: "?since=\(session.version)&wait=10s"))
                }
                #expect(try await eventually { try await api.gauge("remvvm_parked_polls") == Double(count) })
                let before = server.server.pool.acceptedJobs
                #expect(try await api.dispatch(session, TestActions.increase).status == 200)
                for poll in polls {
                    let response = try await poll.response()
                    #expect(response.status == 200)
                    #expect(try response.json()["views"]?["counter"] != nil, "\(response.text)")
                }
                #expect(server.server.pool.acceptedJobs == before + 1)
            }
        }

        @Test func aRoomOfMoreThan64MembersIsServedInChunksOnThePool() async throws {
            try await withTestServer { server in
                let api = try server.client()
                var members: [TestSession] = []
                for index in 0..<70 {
                    let member = try await api.createSession()
                    _ = try await ChatTests.dispatched(ChatTests.join("big", as: "m\(index)"), to: member, api: api)
                    members.append(member)
                }
                let before = server.server.pool.acceptedJobs
                _ = try await ChatTests.dispatched(ChatTests.post("to all"), to: members[0], api: api)
                #expect(server.server.pool.acceptedJobs >= before + 2, "64 + 6 inboxes: two chunks")
                for member in members {
                    #expect(
                        try await eventually {
                            ChatTests.lines(try await ChatTests.chat(member, api: api)) == ["m0: to all"]
                        })
                }
            }
        }

        @Test func aBacklogOfSeveralPassesIsDeliveredThroughThePool() async throws {
            var topics = TopicConfiguration()
            topics.maxDeliveriesPerPass = 4
            let definition = ExampleApp.definition(services: TestApp.services, topics: TopicHub(configuration: topics))
            try await withTestServer(definition) { server in
                let api = try server.client()
                let (ada, bob) = (try await api.createSession(), try await api.createSession())
                _ = try await ChatTests.dispatched(ChatTests.join("lobby", as: "Ada"), to: ada, api: api)
                for index in 1...20 {
                    _ = try await ChatTests.dispatched(ChatTests.post("\(index)"), to: ada, api: api)
                }
                let before = server.server.pool.acceptedJobs
                // Bob's inbox gets the 20 retained messages: one pass on the joining worker, four on the pool.
                _ = try await ChatTests.dispatched(ChatTests.join("lobby", as: "Bob"), to: bob, api: api)
                let expected = (1...20).map { "Ada: \($0)" }
                #expect(try await eventually { ChatTests.lines(try await ChatTests.chat(bob, api: api)) == expected })
                #expect(server.server.pool.acceptedJobs >= before + 4)
            }
        }
    }
}
