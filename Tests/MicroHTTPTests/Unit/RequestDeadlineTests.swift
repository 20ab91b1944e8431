import Testing

@testable import MicroHTTP

@Suite("Request deadlines")
struct RequestDeadlineTests {
    private static var limits: RequestDeadline.Limits {
        var configuration = HTTPServerConfiguration()
        configuration.requestHeadTimeout = .seconds(10)
        configuration.requestBodyTimeout = .seconds(30)
        configuration.connectionTimeout = 60
        return RequestDeadline.Limits(configuration)
    }

    private static let second: Int64 = 1_000_000_000

    @Test func aFirstHeadCountsFromTheOpeningEvenPastItsRequestLine() {
        var deadline = RequestDeadline(openedAt: 0, limits: Self.limits)
        deadline.requestLineSeen(at: 9 * Self.second, limits: Self.limits)
        #expect(deadline.expired(at: 10 * Self.second - 1) == nil)
        #expect(deadline.expired(at: 10 * Self.second) == .head)
    }

    @Test func theBodyCountsFromTheHeadAndHandlingHasNoDeadline() {
        var deadline = RequestDeadline(openedAt: 0, limits: Self.limits)
        deadline.headReceived(at: 5 * Self.second, limits: Self.limits)
        #expect(deadline.expired(at: 34 * Self.second) == nil)
        #expect(deadline.expired(at: 35 * Self.second) == .body)
        deadline.bodyReceived()
        #expect(deadline.expired(at: .max) == nil)
    }

    @Test func aKeepAliveConnectionWaitsUpToItsTimeoutThenHasAWholeHead() {
        var deadline = RequestDeadline(openedAt: 0, limits: Self.limits)
        deadline.headReceived(at: 0, limits: Self.limits)
        deadline.bodyReceived()
        deadline.requestCompleted(at: 100 * Self.second, limits: Self.limits)
        #expect(deadline.expired(at: 159 * Self.second) == nil)
        #expect(deadline.expired(at: 160 * Self.second) == .idle)
        deadline.requestLineSeen(at: 150 * Self.second, limits: Self.limits)
        #expect(deadline.expired(at: 159 * Self.second) == nil)
        #expect(deadline.expired(at: 160 * Self.second) == .head)
        deadline.expire()
        #expect(deadline.expired(at: .max) == nil)
    }

    @Test func noConnectionTimeoutMeansNoIdleDeadline() {
        var configuration = HTTPServerConfiguration()
        configuration.connectionTimeout = 0
        let limits = RequestDeadline.Limits(configuration)
        var deadline = RequestDeadline(openedAt: 0, limits: limits)
        deadline.requestCompleted(at: 0, limits: limits)
        #expect(deadline.expired(at: .max) == nil)
    }
}
