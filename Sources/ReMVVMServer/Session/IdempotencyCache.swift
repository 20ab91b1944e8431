import MicroHTTP

/// Remembers dispatch answers by `Idempotency-Key`, so a retried request is answered without
/// applying its actions again.
struct IdempotencyCache {
    /// What to do with a request carrying a key.
    enum Decision {
        /// First time: run it, then ``finish(key:response:)``.
        case proceed
        /// Seen with the same body: send the stored answer.
        case replay(HTTPResponse)
        /// Seen with another body.
        case mismatch
        /// The first request with this key is still running.
        case inFlight
    }

    private enum Entry {
        case running(fingerprint: Int)
        case done(fingerprint: Int, response: HTTPResponse)
    }

    private var entries: [String: Entry] = [:]
    private var order: [String] = []
    private let limit: Int

    /// Whether a key is acceptable: 1 to 255 visible ASCII characters, spaces only inside (what the OpenAPI
    /// description's pattern `^[!-~]([ -~]*[!-~])?$` says).
    static func isValidKey(_ key: String) -> Bool {
        let bytes = key.utf8
        guard let first = bytes.first, let last = bytes.last, bytes.count <= 255 else { return false }
        let visible = UInt8(ascii: "!")...UInt8(ascii: "~")
        guard visible.contains(first), visible.contains(last) else { return false }
        return bytes.allSatisfy { $0 == UInt8(ascii: " ") || visible.contains($0) }
    }

    init(limit: Int) {
        self.limit = max(limit, 1)
    }

    /// Decides about a request with `key` and this body, and marks a new key as running.
    mutating func begin(key: String, body: [UInt8]) -> Decision {
        let fingerprint = Self.fingerprint(body)
        switch entries[key] {
        case .running(let seen):
            return seen == fingerprint ? .inFlight : .mismatch
        case .done(let seen, let response):
            return seen == fingerprint ? .replay(response) : .mismatch
        case nil:
            if order.count >= limit {
                let oldest = order.removeFirst()
                entries[oldest] = nil
            }
            entries[key] = .running(fingerprint: fingerprint)
            order.append(key)
            return .proceed
        }
    }

    /// Stores the answer of a request that ran.
    mutating func finish(key: String, body: [UInt8], response: HTTPResponse) {
        guard entries[key] != nil else { return }
        entries[key] = .done(fingerprint: Self.fingerprint(body), response: response)
    }

    /// Forgets a key whose request was not applied (it may be retried).
    mutating func abandon(key: String) {
        entries[key] = nil
        order.removeAll { $0 == key }
    }

    private static func fingerprint(_ body: [UInt8]) -> Int {
        var hasher = Hasher()
        hasher.combine(body)
        return hasher.finalize()
    }
}
