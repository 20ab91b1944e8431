import Foundation
import MicroHTTP
import ReMVVMPersistence
import Testing

@testable import ReMVVMServer

/// The `Idempotency-Key` bookkeeping without I/O (the end-to-end 409 test holds a dispatch at a gate).
@Suite("Idempotency cache")
struct IdempotencyCacheTests {
    private static let body: [UInt8] = Array(#"{"type":"counter/increase"}"#.utf8)
    private static let digest = IdempotencyCache.digest(body)
    private static let answer = HTTPResponse(status: 200, body: .bytes(Array("stored".utf8)))

    @Test func aNewKeyProceedsAndARepeatWhileRunningIsInFlight() {
        var cache = IdempotencyCache(limit: 4)
        #expect(Self.isProceed(cache.begin(key: "a", digest: Self.digest)))
        #expect(Self.isInFlight(cache.begin(key: "a", digest: Self.digest)))
        #expect(Self.isMismatch(cache.begin(key: "a", digest: [1])))
    }

    @Test func aFinishedKeyReplaysItsAnswerForTheSameBodyOnly() {
        var cache = IdempotencyCache(limit: 4)
        _ = cache.begin(key: "a", digest: Self.digest)
        cache.finish(key: "a", digest: Self.digest, response: Self.answer)
        guard case .replay(let response) = cache.begin(key: "a", digest: Self.digest) else {
            Issue.record("expected a replay")
            return
        }
        #expect(response.status == 200)
        #expect(Self.isMismatch(cache.begin(key: "a", digest: [1])))
    }

    @Test func aRestoredKeyReplaysItsStoredAnswerWithItsVersion() {
        var cache = IdempotencyCache(limit: 4)
        let answer = Data(#"{"results":["applied"]}"#.utf8)
        cache.restore(StoredIdempotencyKey(key: "a", digest: Self.digest, version: 7, answer: answer), epoch: "e")
        guard case .replay(let response) = cache.begin(key: "a", digest: Self.digest) else {
            Issue.record("expected a replay")
            return
        }
        #expect(response.headers["Store-Version"] == "e.7")
        guard case .bytes(let body) = response.body else {
            Issue.record("expected bytes")
            return
        }
        #expect(body == Array(answer))
        #expect(Self.isMismatch(cache.begin(key: "a", digest: [1])))
    }

    @Test func aRestoredKeyWithoutItsAnswerNamesTheCommittedVersion() {
        var cache = IdempotencyCache(limit: 4)
        cache.restore(StoredIdempotencyKey(key: "a", digest: Self.digest, version: 3), epoch: "e")
        guard case .replay(let response) = cache.begin(key: "a", digest: Self.digest),
            case .bytes(let body) = response.body
        else {
            Issue.record("expected a replay")
            return
        }
        #expect(String(decoding: body, as: UTF8.self) == #"{"results":[],"version":"e.3","views":{}}"#)
    }

    @Test func anAbandonedKeyMayBeRetried() {
        var cache = IdempotencyCache(limit: 4)
        _ = cache.begin(key: "a", digest: Self.digest)
        cache.abandon(key: "a")
        #expect(Self.isProceed(cache.begin(key: "a", digest: [1])))
    }

    @Test func theOldestKeyIsForgottenBeyondTheLimit() {
        var cache = IdempotencyCache(limit: 2)
        for key in ["a", "b", "c"] {
            _ = cache.begin(key: key, digest: Self.digest)
            cache.finish(key: key, digest: Self.digest, response: Self.answer)
        }
        #expect(Self.isProceed(cache.begin(key: "a", digest: Self.digest)))
        guard case .replay = cache.begin(key: "c", digest: Self.digest) else {
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

    @Test func aKeptAnswerDropsItsViewsAndAReplayCanPutThemBack() throws {
        let whole = Array(
            #"{"results":["applied",{"blocked":"no, \"views\":{} here"}],"version":"e.7","views":{"big":{"x":"y"}}}"#
                .utf8)
        let kept = IdempotencyCache.compact(whole, limit: 4096)
        #expect(
            String(decoding: kept, as: UTF8.self)
                == #"{"results":["applied",{"blocked":"no, \"views\":{} here"}],"version":"e.7","views":{}}"#)
        let prefix = try #require(IdempotencyCache.viewlessPrefix(kept))
        #expect(String(decoding: prefix, as: UTF8.self).hasSuffix(#""version":"e.7","views":{"#))
        #expect(IdempotencyCache.viewlessPrefix(whole) == nil, "an answer kept whole replays as it is")
    }

    @Test func aBatchWhoseResultsPassTheLimitKeepsOnlyItsVersion() {
        let results = Array(repeating: #""applied""#, count: 1_000).joined(separator: ",")
        let whole = Array(#"{"results":[\#(results)],"version":"e.9","views":{"a":1}}"#.utf8)
        let kept = IdempotencyCache.compact(whole, limit: 4096)
        #expect(String(decoding: kept, as: UTF8.self) == #"{"results":[],"version":"e.9","views":{}}"#)
    }
}
