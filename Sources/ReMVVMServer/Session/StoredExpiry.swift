import Foundation
import ReMVVMPersistence

/// Keeps each stored session's expiry (``SessionRecord/expires``) ahead of its expiry in memory, cheaply.
///
/// A session in memory expires a TTL after its last use; its stored copy must outlive that, or another node's
/// tidy would delete a session in use, but writing the expiry at every request would cost a write per request.
/// So the stored expiry runs ahead by a margin (a quarter of the TTL, at least two seconds): it is moved only when
/// a use finds it less than a TTL away, at most once per margin per session, and then goes in the writer's next
/// transaction with the rest. A session someone waits on counts as used each time the registry looks at it.
/// After a crash, a session's stored copy outlives its last use by at most a TTL and the margin.
final class StoredExpiry: Sendable {
    /// The TTL, in nanoseconds.
    let ttl: Int64
    /// How far the stored expiry runs ahead of the one in memory, in nanoseconds.
    let margin: Int64
    /// Queues a later expiry of the session for storage.
    private let extend: @Sendable (_ session: String, _ expires: Date) -> Void

    init(ttl: Int64, extend: @escaping @Sendable (_ session: String, _ expires: Date) -> Void) {
        self.ttl = ttl
        margin = max(ttl / 4, 2_000_000_000)
        self.extend = extend
    }

    /// The stored expiry of a session due to expire in memory at `due` (monotonic nanoseconds).
    func stored(forDue due: Int64) -> Int64 { due + margin }

    /// `session` was used at `now`: queues a later stored expiry when the one stored is less than a TTL away.
    func used(_ session: Session, at now: Int64) {
        guard let until = session.extendStoredExpiry(to: now + ttl + margin, ifBefore: now + ttl) else { return }
        extend(session.id, Self.date(ofMonotonic: until))
    }

    /// Puts a session restored from storage back on its stored expiry: it counts as last used a TTL before it (at
    /// the latest now), so it expires in memory when its stored copy would.
    func resume(_ session: Session, storedUntil expires: Date) {
        let until = Self.monotonic(of: expires)
        session.resumeExpiry(lastUsed: min(until - ttl, Session.now()), storedUntil: until)
    }

    /// The wall-clock time of a monotonic time (``Session/now()``'s nanoseconds).
    static func date(ofMonotonic time: Int64) -> Date {
        Date(timeIntervalSinceNow: Double(time - Session.now()) / 1e9)
    }

    /// The monotonic time of a wall-clock time.
    static func monotonic(of date: Date) -> Int64 {
        let seconds = date.timeIntervalSinceNow
        // Clamped: a date decades away (a damaged row) must not overflow.
        return Session.now() + Int64(max(min(seconds, 1e9), -1e9) * 1e9)
    }
}
