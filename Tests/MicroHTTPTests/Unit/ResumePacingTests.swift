import Testing

@testable import MicroHTTP

/// A worker's spacing of its resume batches (``ResumePacing``), from the connections parked on its daemon.
@Suite("Resume pacing")
struct ResumePacingTests {
    private static let eightMilliseconds: Int64 = 8_000_000

    @Test(arguments: [
        (0, ResumePacing(gap: 0, enough: 1)),
        (39, ResumePacing(gap: 62_400, enough: 1)),
        (2_500, ResumePacing(gap: 4_000_000, enough: 62)),
        (5_000, ResumePacing(gap: 8_000_000, enough: 125)),
        (20_000, ResumePacing(gap: 8_000_000, enough: 500)),
        (-3, ResumePacing(gap: 0, enough: 1)),
    ])
    func theGapGrowsWithTheWalkUpToTheLongestDelayAndAFortiethGoesAtOnce(suspended: Int, expected: ResumePacing) {
        #expect(ResumePacing.worker(suspended: suspended, maxDelay: Self.eightMilliseconds) == expected)
    }

    @Test func noDelayTakesEveryBatchAtOnceButStillCountsAFortieth() {
        #expect(ResumePacing.worker(suspended: 5_000, maxDelay: 0) == ResumePacing(gap: 0, enough: 125))
    }
}
