import Synchronization
import Testing

@testable import MicroHTTP

@Suite("StreamState")
struct StreamStateTests {
    private static let parking = Parking(
        connection: ConnectionHandle(
            pointer: OpaquePointer(UnsafeMutableRawPointer.allocate(byteCount: 1, alignment: 1)), worker: idleWorker),
        watchToken: nil)

    private func read(_ state: inout StreamState, max: Int = 64) -> (StreamState.ReadResult, [UInt8]) {
        var bytes = [UInt8](repeating: 0, count: max)
        let result = bytes.withUnsafeMutableBytes { state.read(into: $0) }
        if case .bytes(let count) = result {
            return (result, Array(bytes[..<count]))
        }
        return (result, [])
    }

    @Test func readsDrainWritesInOrderWithinTheReadersLimit() {
        var state = StreamState(maxBufferedBytes: 1024)
        #expect(state.write([1, 2, 3]) == .buffered)
        #expect(state.write([4, 5]) == .buffered)
        #expect(read(&state, max: 4).1 == [1, 2, 3, 4])
        #expect(read(&state, max: 4).1 == [5])
        #expect(read(&state).0 == .park)
    }

    @Test func writeToAParkedReaderAsksForAResume() {
        var state = StreamState(maxBufferedBytes: 1024)
        #expect(read(&state).0 == .park)
        state.didPark(Self.parking)
        #expect(state.write([9]) == .resume(Self.parking))
        #expect(state.write([10]) == .buffered)
        #expect(read(&state).1 == [9, 10])
    }

    @Test func finishingWithLastBytesLetsNoLaterWriteFollowThem() {
        var state = StreamState(maxBufferedBytes: 1024)
        _ = state.write([1])
        #expect(read(&state, max: 1).1 == [1])
        #expect(read(&state).0 == .park)
        state.didPark(Self.parking)
        #expect(state.finish(last: [7, 8]) == Self.parking)
        #expect(state.write([9]) == .rejected)
        #expect(read(&state).1 == [7, 8])
        #expect(state.finish(last: [10]) == nil)
    }

    @Test func finishResumesAParkedReaderAndEndsAfterTheBufferDrains() {
        var state = StreamState(maxBufferedBytes: 1024)
        _ = state.write([1])
        #expect(read(&state).1 == [1])
        #expect(read(&state).0 == .park)
        state.didPark(Self.parking)
        #expect(state.finish() == Self.parking)
        #expect(state.write([2]) == .rejected)
        #expect(read(&state).0 == .endOfStream)
    }

    @Test func bufferedBytesAreSentBeforeTheEnd() {
        var state = StreamState(maxBufferedBytes: 1024)
        _ = state.write([1, 2])
        #expect(state.finish() == nil)
        #expect(read(&state).1 == [1, 2])
        #expect(read(&state).0 == .endOfStream)
    }

    @Test func exceedingTheBufferLimitAbortsTheStream() {
        var state = StreamState(maxBufferedBytes: 4)
        #expect(state.write([1, 2, 3]) == .buffered)
        #expect(state.write([4, 5]) == .rejected)
        #expect(read(&state).0 == .abort)
        #expect(state.write([6]) == .rejected)
    }

    @Test func clientLeavingAParkedReaderAborts() {
        var state = StreamState(maxBufferedBytes: 1024)
        #expect(state.clientDisappeared() == nil)
        #expect(read(&state).0 == .park)
        state.didPark(Self.parking)
        #expect(state.clientDisappeared() == Self.parking)
        #expect(read(&state).0 == .abort)
    }

    @Test func aStreamServesOneResponse() {
        var state = StreamState(maxBufferedBytes: 1024)
        let first = state.attach()
        let second = state.attach()
        #expect(first && !second)
    }

    @Test func terminationHandlersRunOnceAtTheEnd() {
        var state = StreamState(maxBufferedBytes: 1024)
        #expect(state.addTerminationHandler {})
        #expect(state.end().count == 1)
        #expect(state.isEnded)
        #expect(!state.addTerminationHandler {})
        #expect(state.write([1]) == .rejected)
    }
}

@Suite("Stream state against the server-wide budget")
struct StreamStateBudgetTests {
    @Test func aStreamHoldingUnsentBytesIsEndedWhenAWriteWouldPassTheBudget() {
        let budget = StreamBudget(limit: 100, counters: TransportCounters())
        var state = StreamState(maxBufferedBytes: 1_000)
        #expect(state.write([UInt8](repeating: 1, count: 30)) == .buffered)  // Before attaching: not counted.
        #expect(budget.buffered == 0)
        let attached = state.attach(budget: budget)
        #expect(attached)
        #expect(budget.buffered == 30)
        #expect(state.write([UInt8](repeating: 2, count: 70)) == .buffered)
        #expect(budget.buffered == 100)
        #expect(budget.isExhausted)
        #expect(state.write([1]) == .rejected)  // Holds 100 unsent bytes: it goes.
        #expect(state.isAborted)
        #expect(budget.buffered == 0)
        #expect(budget.counters.streamsEndedOverBudget.load(ordering: .relaxed) == 1)
    }

    @Test func aStreamThatKeepsUpTakesItsNextEventOverTheBudgetAndReadsReleaseIt() {
        let budget = StreamBudget(limit: 10, counters: TransportCounters())
        var state = StreamState(maxBufferedBytes: 1_000)
        let attached = state.attach(budget: budget)
        #expect(attached)
        #expect(state.write([UInt8](repeating: 1, count: 50)) == .buffered)  // Nothing unsent: taken.
        #expect(budget.buffered == 50)
        var buffer = [UInt8](repeating: 0, count: 20)
        let read = buffer.withUnsafeMutableBytes { state.read(into: $0) }
        #expect(read == .bytes(20))
        #expect(budget.buffered == 30)
        _ = state.end()
        #expect(budget.buffered == 0)
    }
}
