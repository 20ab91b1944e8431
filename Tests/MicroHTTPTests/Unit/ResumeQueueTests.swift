import Dispatch
import Glibc
import Synchronization
import Testing

@testable import MicroHTTP

/// The resume thread's queue, with a recording closure in place of `MHD_resume_connection`.
@Suite("ResumeQueue")
struct ResumeQueueTests {
    /// Distinct fake connections; the queue never dereferences them.
    private static func handle(_ number: Int) -> ConnectionHandle {
        // Non-zero addresses that are never dereferenced; `bitPattern:` is nil only for zero.
        ConnectionHandle(pointer: OpaquePointer(UnsafeRawPointer(bitPattern: UInt(number + 1)).unsafelyUnwrapped))
    }

    @Test func everyItemAddedFromManyThreadsIsPerformedOnceInEachThreadsOrder() throws {
        let queue = try #require(ResumeQueue())
        let performed = Mutex<[Int]>([])
        let started = queue.start { connection in
            performed.withLock { $0.append(Int(bitPattern: UnsafeRawPointer(connection.pointer)) - 1) }
        }
        #expect(started)
        let producers = 4
        let perProducer = 5_000
        DispatchQueue.concurrentPerform(iterations: producers) { producer in
            for index in 0..<perProducer {
                #expect(queue.add(Self.handle(producer * perProducer + index)))
            }
        }
        queue.stop()  // Performs whatever is still queued before it returns.
        let order = performed.withLock { $0 }
        #expect(order.count == producers * perProducer)
        #expect(Set(order).count == producers * perProducer)
        for producer in 0..<producers {
            let own = order.filter { $0 / perProducer == producer }
            #expect(own == own.sorted(), "producer \(producer)'s items were performed out of order")
        }
    }

    @Test func nothingIsAcceptedBeforeStartOrAfterStop() throws {
        let queue = try #require(ResumeQueue())
        #expect(!queue.add(Self.handle(1)))
        let performed = Atomic<Int>(0)
        #expect(queue.start { _ in performed.add(1, ordering: .relaxed) })
        #expect(queue.add(Self.handle(2)))
        queue.stop()
        queue.stop()  // Idempotent.
        #expect(!queue.add(Self.handle(3)))
        #expect(performed.load(ordering: .relaxed) == 1)
    }

    /// The batch hooks run on the thread around the items of each batch: what a batch shares (the workers'
    /// wake-ups) happens once, after every item of the batch was performed.
    @Test func eachBatchsItemsRunBetweenItsHooks() throws {
        let queue = try #require(ResumeQueue())
        let events = Mutex<[String]>([])
        let gate = DispatchSemaphore(value: 0)
        let started = queue.start(
            batchBegins: { events.withLock { $0.append("begins") } },
            batchEnds: { events.withLock { $0.append("ends") } }
        ) { connection in
            let number = Int(bitPattern: UnsafeRawPointer(connection.pointer)) - 1
            events.withLock { $0.append("\(number)") }
            if number == 0 { gate.wait() }  // Hold the first batch while the next one gathers.
        }
        try #require(started)
        #expect(queue.add(Self.handle(0)))
        let deadline = ContinuousClock.now + .seconds(10)
        while !events.withLock({ $0.contains("0") }) && ContinuousClock.now < deadline { usleep(100) }
        for index in 1...3 { #expect(queue.add(Self.handle(index))) }
        gate.signal()
        queue.stop()
        #expect(events.withLock { $0 } == ["begins", "0", "ends", "begins", "1", "2", "3", "ends"])
    }

    /// Items added while the thread is inside `perform` find the list non-empty and do not signal; the thread
    /// must still pick them up once it is done (no lost wake-up).
    @Test func itemsAddedWhileTheThreadIsBusyAreNotLost() throws {
        let queue = try #require(ResumeQueue())
        let gate = DispatchSemaphore(value: 0)
        let performed = Atomic<Int>(0)
        let started = queue.start { _ in
            if performed.add(1, ordering: .relaxed).newValue == 1 { gate.wait() }  // Hold the first item.
        }
        #expect(started)
        #expect(queue.add(Self.handle(0)))
        while performed.load(ordering: .relaxed) == 0 { usleep(100) }
        for index in 1...100 { #expect(queue.add(Self.handle(index))) }
        gate.signal()
        let deadline = ContinuousClock.now + .seconds(10)
        while performed.load(ordering: .relaxed) < 101 && ContinuousClock.now < deadline { usleep(100) }
        #expect(performed.load(ordering: .relaxed) == 101, "performed without stop() draining them")
        queue.stop()
    }

    /// A paced queue waits the gap after a batch before it takes the next, and items added meanwhile share
    /// that next batch; the first item after a quiet spell is performed at once.
    @Test func pacedBatchesWaitTheGapAndGatherWhatArrivedMeanwhile() throws {
        let gap: Int64 = 200_000_000
        let run = try PacedRun(pacing: ResumePacing(gap: gap, enough: 1_000))
        let firstAdded = ContinuousClock.now
        #expect(run.queue.add(Self.handle(0)))
        try run.waitForBatches(1)
        for index in 1...20 { #expect(run.queue.add(Self.handle(index))) }
        try run.waitForBatches(2)
        run.queue.stop()
        let (recorded, performed) = run.results
        try #require(recorded.count == 2, "expected two batches, got sizes \(recorded.map(\.size))")
        #expect(recorded.map(\.size) == [1, 20])
        #expect(performed.count == 21)
        // The first item had no batch before it, so it did not wait for a gap (a generous bound for a busy host).
        let first = try #require(performed[0])
        #expect(first - firstAdded < .milliseconds(150))
        for index in 1...20 {
            let at = try #require(performed[index])
            #expect(at - recorded[0].endedAt >= .nanoseconds(gap), "item \(index) did not wait for the gap")
        }
    }

    /// A batch that gathers `enough` items goes at once instead of waiting out the gap, so a burst of answers
    /// is not held back by a pacing meant for a trickle; the items beyond it wait for the next batch.
    @Test func aBatchThatGathersEnoughItemsGoesBeforeTheGapHasPassed() throws {
        let run = try PacedRun(pacing: ResumePacing(gap: 60_000_000_000, enough: 8))
        #expect(run.queue.add(Self.handle(0)))
        try run.waitForBatches(1)
        let deadline = ContinuousClock.now + .seconds(10)
        while run.queue.enough != 8 && ContinuousClock.now < deadline { usleep(100) }  // Set just after the pacing.
        let added = ContinuousClock.now
        for index in 1...8 { #expect(run.queue.add(Self.handle(index))) }
        try run.waitForBatches(2)
        let (recorded, performed) = run.results
        #expect(recorded.map(\.size) == [1, 8])
        let last = try #require(performed[8])
        #expect(last - added < .seconds(30), "the full batch waited for the gap")
        #expect(run.queue.add(Self.handle(9)))  // Alone after a full batch: it waits for the gap or for stop().
        usleep(50_000)
        #expect(run.results.performed[9] == nil)
        run.queue.stop()  // Performs what is still queued.
        #expect(run.results.performed[9] != nil)
    }

    /// The server's pacing rule: the gap grows with the parked connections each walk visits, up to a cap that
    /// bounds the latency a lone answer pays, and a batch of a fortieth of them goes at once.
    @Test func serverPacingGrowsWithParkedConnectionsUpToItsCap() {
        #expect(ResumePacing.server(suspended: 0, maxDelay: 8_000_000) == ResumePacing(gap: 0, enough: 1))
        #expect(ResumePacing.server(suspended: -3, maxDelay: 8_000_000) == ResumePacing(gap: 0, enough: 1))
        let few = ResumePacing.server(suspended: 100, maxDelay: 8_000_000)
        let many = ResumePacing.server(suspended: 5_000, maxDelay: 8_000_000)
        #expect(few.gap > 0)
        #expect(few.gap < many.gap)
        #expect(few.enough < many.enough)
        #expect(ResumePacing.server(suspended: 10_000, maxDelay: 8_000_000).enough == 250)
        let capped = ResumePacing.server(suspended: 1_000_000, maxDelay: 8_000_000)
        #expect(capped.gap == ResumePacing.server(suspended: 100_000_000, maxDelay: 8_000_000).gap)
        #expect(capped.gap == 8_000_000)
    }

    /// The longest wait is configurable (``HTTPServerConfiguration/maxResumeDelay``): it is reached at 10,000
    /// parked connections and scales down below; zero paces nothing.
    @Test(arguments: [
        (2_000_000 as Int64, 10_000, 2_000_000 as Int64), (2_000_000, 5_000, 1_000_000),
        (2_000_000, 50_000, 2_000_000), (20_000_000, 10_000, 20_000_000), (0, 10_000, 0), (0, 0, 0),
        (5_000, 5_000, 2_500), (3_600_000_000_000, 5_000, 1_800_000_000_000),
    ])
    func serverPacingReachesTheConfiguredDelayAtTenThousandParked(maxDelay: Int64, suspended: Int, gap: Int64) {
        #expect(ResumePacing.server(suspended: suspended, maxDelay: maxDelay).gap == gap)
        var configuration = HTTPServerConfiguration()
        configuration.maxResumeDelay = .nanoseconds(maxDelay)
        #expect(ServerCore.resumePacing(configuration, suspended: suspended).gap == gap)
    }

    @Test func theDefaultLongestWaitIsEightMilliseconds() {
        #expect(HTTPServerConfiguration().maxResumeDelay == .milliseconds(8))
        #expect(ServerCore.resumePacing(HTTPServerConfiguration(), suspended: 10_000).gap == 8_000_000)
    }

    /// A started queue with fixed pacing that records each batch's size and end, and when each item ran.
    private final class PacedRun: Sendable {
        private final class Record: Sendable {
            let batches = Mutex<[(size: Int, endedAt: ContinuousClock.Instant)]>([])
            let performedAt = Mutex<[Int: ContinuousClock.Instant]>([:])
            let size = Atomic<Int>(0)
        }

        let queue: ResumeQueue
        private let record = Record()

        init(pacing: ResumePacing) throws {
            queue = try #require(ResumeQueue())
            let record = record
            // The pacing closure runs once after each batch: it marks the batch's end.
            let started = queue.start(
                pacing: {
                    let size = record.size.exchange(0, ordering: .relaxed)
                    record.batches.withLock { $0.append((size, ContinuousClock.now)) }
                    return pacing
                },
                performing: { connection in
                    record.size.add(1, ordering: .relaxed)
                    let number = Int(bitPattern: UnsafeRawPointer(connection.pointer)) - 1
                    record.performedAt.withLock { $0[number] = ContinuousClock.now }
                })
            try #require(started)
        }

        var results:
            (batches: [(size: Int, endedAt: ContinuousClock.Instant)], performed: [Int: ContinuousClock.Instant])
        {
            (record.batches.withLock { $0 }, record.performedAt.withLock { $0 })
        }

        /// Waits (at most 10 s) until `count` batches have ended.
        func waitForBatches(_ count: Int) throws {
            let deadline = ContinuousClock.now + .seconds(10)
            while record.batches.withLock({ $0.count < count }) && ContinuousClock.now < deadline { usleep(100) }
            try #require(record.batches.withLock { $0.count } >= count, "fewer than \(count) batches ended in 10 s")
        }
    }
}
