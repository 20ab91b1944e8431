import Synchronization

/// A token bucket per client address: each address may take `burst` at once, then `rate` per second.
///
/// The table is bounded: at `capacity` addresses it first forgets the buckets that are full again (the same as
/// forgetting nothing), then, if an address flood left none full, the least recently used half, so memory stays
/// bounded whatever the number of addresses, and the cost of forgetting is spread over the half it frees. A
/// forgotten address starts again with a full bucket: an attacker with more addresses than `capacity` gains at
/// most a burst per address, which the server-wide session limit still caps.
final class AddressBudget: Sendable {
    /// One address's bucket.
    struct Bucket {
        var tokens: Double
        /// When `tokens` was last brought up to date, in clock nanoseconds.
        var updated: Int64
    }

    /// The outcome of asking for a token.
    enum Decision: Equatable {
        case admitted
        /// Refused: the next token comes in this many whole seconds (at least 1), for `Retry-After`.
        case refused(retryAfter: Int)
    }

    private let burst: Double
    private let rate: Double
    private let capacity: Int
    private let buckets = Mutex<[String: Bucket]>([:])

    /// A budget of `burst` tokens per address refilled at `rate` per second, for at most `capacity` addresses.
    init(burst: Int, rate: Double, capacity: Int) {
        self.burst = Double(max(burst, 1))
        self.rate = max(rate, 0)
        self.capacity = max(capacity, 2)
    }

    /// How many addresses are tracked (for tests).
    var count: Int { buckets.withLock { $0.count } }

    /// Takes a token for `address` at `now` (clock nanoseconds), or says how long until one comes.
    func take(_ address: String, now: Int64) -> Decision {
        buckets.withLock { buckets in
            if buckets[address] == nil, buckets.count >= capacity { forget(in: &buckets, now: now) }
            var bucket = buckets[address] ?? Bucket(tokens: burst, updated: now)
            bucket.tokens = tokens(of: bucket, at: now)
            bucket.updated = now
            defer { buckets[address] = bucket }
            guard bucket.tokens >= 1 else {
                let wait = rate > 0 ? ((1 - bucket.tokens) / rate).rounded(.up) : 60
                return .refused(retryAfter: max(Int(min(wait, 3_600)), 1))
            }
            bucket.tokens -= 1
            return .admitted
        }
    }

    /// The bucket's tokens at `now`: refilled since it was last brought up to date, up to the burst.
    private func tokens(of bucket: Bucket, at now: Int64) -> Double {
        let elapsed = Double(max(now - bucket.updated, 0)) / 1e9
        return min(burst, bucket.tokens + elapsed * rate)
    }

    /// Makes room: drops the full buckets, then, if that freed less than half, the least recently used until half
    /// the capacity is free.
    private func forget(in buckets: inout [String: Bucket], now: Int64) {
        buckets = buckets.filter { tokens(of: $0.value, at: now) < burst }
        let keep = capacity / 2
        guard buckets.count > keep else { return }
        let newest = buckets.sorted { $0.value.updated > $1.value.updated }.prefix(keep)
        buckets = Dictionary(uniqueKeysWithValues: newest.map { ($0.key, $0.value) })
    }
}
