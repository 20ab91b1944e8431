import Foundation
import Testing

@testable import ReMVVMClient

/// Which answers the client retries and how long it waits: a table, no I/O.
@Suite struct ClientErrorTests {
    @Test(arguments: [
        (401, ClientError.Kind.unauthorized, false), (403, .forbidden, false), (404, .sessionNotFound, false),
        (409, .tooManyRequests, true), (422, .rejected, false), (429, .tooManyRequests, true),
        (500, .serverError, false), (502, .unavailable, true), (503, .unavailable, true),
    ])
    func aStatusIsAnErrorKindRetriedOnlyWhenWaitingCanCureIt(status: Int, kind: ClientError.Kind, retried: Bool) {
        let body = Data(#"{"type":"/problems/x","title":"T","status":\#(status),"detail":"what to fix"}"#.utf8)
        let error = ClientError(status: status, body: body, retryAfter: nil)
        #expect(error.kind == kind && error.isRetryable == retried && error.detail == "what to fix")
    }

    @Test func retryAfterIsAFloorAndBackoffIsBounded() {
        let policy = RetryPolicy(initialDelay: .milliseconds(100), maximumDelay: .seconds(2), jitter: 0.5)
        for attempt in 0..<20 {
            let delay = policy.delay(attempt: attempt)
            #expect(delay >= .milliseconds(75) && delay <= .milliseconds(2_500))
            let told = policy.delay(attempt: attempt, retryAfter: .seconds(1))
            #expect(told >= .seconds(1) && told <= .milliseconds(1_050))
        }
    }
}
