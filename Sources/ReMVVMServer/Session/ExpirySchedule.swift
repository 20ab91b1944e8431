/// Which sessions to look at, and when, so that expiring idle sessions reads only those whose time may have come.
///
/// A session is filed under the second in which its idle time could first run out. Requests only move the
/// session's own clock (``Session/touch(at:)``) and never the schedule, so a session in steady use is looked at
/// about once per TTL, found in use and filed again; an idle server with a million sessions reads none of them
/// until their seconds come.
struct ExpirySchedule: Sendable {
    /// One slot's width: how late after its deadline a session may be ended.
    static let slotNanoseconds: Int64 = 1_000_000_000

    private var slots: [Int64: [SessionKey]] = [:]
    /// The first slot not yet taken; a session due earlier is filed here instead.
    private var nextSlot: Int64

    /// An empty schedule whose past ends at `now` (monotonic nanoseconds).
    init(now: Int64) {
        nextSlot = Self.slot(of: now)
    }

    /// How many filings are waiting (a session filed twice counts twice).
    var count: Int { slots.values.reduce(0) { $0 + $1.count } }

    /// Files `key` to be looked at once `deadline` (monotonic nanoseconds) has passed.
    mutating func file(_ key: SessionKey, dueAt deadline: Int64) {
        slots[max(Self.slot(of: deadline), nextSlot), default: []].append(key)
    }

    /// Takes every key filed under a second that ended by `now`: each deadline among them has passed.
    mutating func takeDue(now: Int64) -> [SessionKey] {
        let current = Self.slot(of: now)
        guard current > nextSlot else { return [] }
        defer { nextSlot = current }
        let passed: [Int64]
        if current - nextSlot <= Int64(slots.count) {
            passed = Array(nextSlot..<current)  // The usual case: called every second, one slot has passed.
        } else {
            passed = slots.keys.filter { $0 < current }.sorted()  // After a long pause: only the slots that exist.
        }
        var due: [SessionKey] = []
        for slot in passed {
            if let keys = slots.removeValue(forKey: slot) { due += keys }
        }
        return due
    }

    private static func slot(of time: Int64) -> Int64 {
        time >= 0 ? time / slotNanoseconds : (time + 1) / slotNanoseconds - 1  // Rounded down, also below zero.
    }
}
