import Testing

@testable import ReMVVMClient

/// When the client reconnects after a move, as a state machine with no I/O.
@Suite struct MoveBackoffTests {
    private let start = ContinuousClock.now
    private let window = Duration.seconds(40)

    @Test func aMoveIsFollowedAtOnceAndMovesInARowWaitLongerEachTime() {
        var moves = MoveBackoff()
        let table: [(after: Duration, attempt: Int?)] = [
            (.zero, nil), (.milliseconds(5), 0), (.milliseconds(300), 1), (.seconds(2), 2), (.seconds(39), 3),
        ]
        var now = start
        for (after, attempt) in table {
            now += after
            #expect(moves.moved(at: now, window: window) == attempt, "after \(after)")
        }
    }

    @Test func aMoveLongAfterTheLastStartsOverAtOnce() {
        var moves = MoveBackoff()
        #expect(moves.moved(at: start, window: window) == nil)
        #expect(moves.moved(at: start + .seconds(1), window: window) == 0)
        #expect(moves.moved(at: start + .seconds(2), window: window) == 1)
        #expect(moves.moved(at: start + .seconds(42), window: window) == nil)
        #expect(moves.moved(at: start + .seconds(43), window: window) == 0)
    }

    @Test func theWindowCoversATugOfWarAtTheLongestDelay() {
        let retry = RetryPolicy(initialDelay: .milliseconds(200), maximumDelay: .seconds(10), jitter: 0.5)
        // Each side waits at most 125% of the longest delay, then the other side does.
        #expect(MoveBackoff.window(for: retry) > retry.maximumDelay * 1.25 * 2)
    }
}
