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
        let queue = try #require(ResumeQueue())
        let gap: Int64 = 200_000_000
        // The pacing closure runs once after each batch, with its size: it marks the batches' ends.
        let batches = Mutex<[(size: Int, endedAt: ContinuousClock.Instant)]>([])
        let performedAt = Mutex<[Int: ContinuousClock.Instant]>([:])
        let started = queue.start(
            pacing: { size in
                batches.withLock { $0.append((size, ContinuousClock.now)) }
                return gap
            },
            performing: { connection in
                let number = Int(bitPattern: UnsafeRawPointer(connection.pointer)) - 1
                performedAt.withLock { $0[number] = ContinuousClock.now }
            })
        #expect(started)
        let firstAdded = ContinuousClock.now
        #expect(queue.add(Self.handle(0)))
        let deadline = ContinuousClock.now + .seconds(10)
        while batches.withLock({ $0.isEmpty }) && ContinuousClock.now < deadline { usleep(100) }
        for index in 1...20 { #expect(queue.add(Self.handle(index))) }
        while batches.withLock({ $0.count < 2 }) && ContinuousClock.now < deadline { usleep(100) }
        queue.stop()
        let recorded = batches.withLock { $0 }
        let performed = performedAt.withLock { $0 }
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

    /// The server's pacing rule: a batch of 32 or more already shares libmicrohttpd's walk and waits for
    /// nothing; a smaller one waits in proportion to the parked connections the walk visits, up to a cap
    /// that bounds the latency a lone answer pays.
    @Test func serverPacingGrowsWithParkedConnectionsUpToItsCap() {
        #expect(ServerCore.resumePacing(batch: 32, suspended: 10_000) == 0)
        #expect(ServerCore.resumePacing(batch: 1, suspended: 0) == 0)
        let few = ServerCore.resumePacing(batch: 1, suspended: 100)
        let many = ServerCore.resumePacing(batch: 31, suspended: 5_000)
        #expect(few > 0)
        #expect(few < many)
        let capped = ServerCore.resumePacing(batch: 1, suspended: 1_000_000)
        #expect(capped == ServerCore.resumePacing(batch: 1, suspended: 100_000_000))
        #expect(capped <= 4_000_000)
    }
}
