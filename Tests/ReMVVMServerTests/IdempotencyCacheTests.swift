import MicroHTTP
import Testing

@testable import ReMVVMServer

/// The `Idempotency-Key` bookkeeping without I/O (the end-to-end 409 test holds a dispatch at a gate).
@Suite("Idempotency cache")
struct IdempotencyCacheTests {
    private static let body: [UInt8] = Array(#"{"type":"counter/increase"}"#.utf8)
    private static let answer = HTTPResponse(status: 200, body: .bytes(Array("stored".utf8)))

    @Test func aNewKeyProceedsAndARepeatWhileRunningIsInFlight() {
        var cache = IdempotencyCache(limit: 4)
        #expect(Self.isProceed(cache.begin(key: "a", body: Self.body)))
        #expect(Self.isInFlight(cache.begin(key: "a", body: Self.body)))
        #expect(Self.isMismatch(cache.begin(key: "a", body: [1])))
    }

    @Test func aFinishedKeyReplaysItsAnswerForTheSameBodyOnly() {
        var cache = IdempotencyCache(limit: 4)
        _ = cache.begin(key: "a", body: Self.body)
        cache.finish(key: "a", body: Self.body, response: Self.answer)
        guard case .replay(let response) = cache.begin(key: "a", body: Self.body) else {
            Issue.record("expected a replay")
            return
        }
        #expect(response.status == 200)
        #expect(Self.isMismatch(cache.begin(key: "a", body: [1])))
    }

    @Test func anAbandonedKeyMayBeRetried() {
        var cache = IdempotencyCache(limit: 4)
        _ = cache.begin(key: "a", body: Self.body)
        cache.abandon(key: "a")
        #expect(Self.isProceed(cache.begin(key: "a", body: [1])))
    }

    @Test func theOldestKeyIsForgottenBeyondTheLimit() {
        var cache = IdempotencyCache(limit: 2)
        for key in ["a", "b", "c"] {
            _ = cache.begin(key: key, body: Self.body)
            cache.finish(key: key, body: Self.body, response: Self.answer)
        }
        #expect(Self.isProceed(cache.begin(key: "a", body: Self.body)))
        guard case .replay = cache.begin(key: "c", body: Self.body) else {
            Issue.record("the newest key was forgotten")
            return
        }
    }

    private static func isProceed(_ decision: IdempotencyCache.Decision) -> Bool {
        if case .proceed = decision { return true }
        return false
    }

    private static func isInFlight(_ decision: IdempotencyCache.Decision) -> Bool {
        if case .inFlight = decision { return true }
        return false
    }

    private static func isMismatch(_ decision: IdempotencyCache.Decision) -> Bool {
        if case .mismatch = decision { return true }
        return false
    }
}
