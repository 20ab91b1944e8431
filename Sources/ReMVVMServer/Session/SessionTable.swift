/// Sessions by key, in one flat array probed linearly: a key and its session lie side by side.
///
/// Every request looks its session up. In a dictionary of thousands of sessions a lookup reads three
/// cold cache lines (the bucket's occupancy word, the key, the value, each in an array of its own) and
/// hashes the key with SipHash; here it reads the slot the key's bits name, usually the one line, and
/// hashes with one multiplication. Keys are the server's own random bits (``SecureToken``; a client can look a
/// key up but never file one); the multiplication also spreads low words that differ in a few bits only.
struct SessionTable {
    private struct Slot {
        var key: SessionKey
        /// nil: an empty slot.
        var session: Session?
    }

    private var slots: [Slot]
    /// `64 - log2(slots.count)`: a key's home slot is the top bits of its mixed low word.
    private var shift: UInt64
    /// How many slots hold a session.
    private(set) var count = 0

    /// Grown to twice the size when more than this share of the slots would be taken.
    private static let maxLoadNumerator = 3
    private static let maxLoadDenominator = 4
    private static let initialCapacity = 16

    init() {
        slots = Array(repeating: Slot(key: SessionKey.zero, session: nil), count: Self.initialCapacity)
        shift = UInt64(64 - Self.initialCapacity.trailingZeroBitCount)
    }

    /// The session filed under `key`, if any.
    subscript(key: SessionKey) -> Session? {
        slots.withUnsafeBufferPointer { slots in
            var index = home(of: key)
            while let session = slots[index].session {
                if slots[index].key == key { return session }
                index = (index + 1) & (slots.count - 1)
            }
            return nil
        }
    }

    /// Files `session` under `key`; returns the session it replaced, if any.
    @discardableResult
    mutating func updateValue(_ session: Session, forKey key: SessionKey) -> Session? {
        if (count + 1) * Self.maxLoadDenominator > slots.count * Self.maxLoadNumerator {
            grow()
        }
        var index = home(of: key)
        while let filed = slots[index].session {
            if slots[index].key == key {
                slots[index].session = session
                return filed
            }
            index = (index + 1) & (slots.count - 1)
        }
        slots[index] = Slot(key: key, session: session)
        count += 1
        return nil
    }

    /// Removes the session filed under `key`; returns it, if there was one.
    ///
    /// The sessions after it in its run move back to close the gap (backward-shift deletion), so lookups
    /// never need markers for removed slots.
    @discardableResult
    mutating func removeValue(forKey key: SessionKey) -> Session? {
        let mask = slots.count - 1
        var index = home(of: key)
        while slots[index].key != key || slots[index].session == nil {
            guard slots[index].session != nil else { return nil }
            index = (index + 1) & mask
        }
        let removed = slots[index].session
        var gap = index
        var next = (gap + 1) & mask
        while slots[next].session != nil {
            // A session may move back into the gap unless its home lies cyclically after the gap, up to it.
            let distanceFromHome = (next - home(of: slots[next].key)) & mask
            if distanceFromHome >= (next - gap) & mask {
                slots[gap] = slots[next]
                gap = next
            }
            next = (next + 1) & mask
        }
        slots[gap] = Slot(key: SessionKey.zero, session: nil)
        count -= 1
        return removed
    }

    /// Every session, in no particular order.
    var values: [Session] {
        var values: [Session] = []
        values.reserveCapacity(count)
        for slot in slots {
            if let session = slot.session { values.append(session) }
        }
        return values
    }

    private func home(of key: SessionKey) -> Int {
        Int(truncatingIfNeeded: (key.low &* 0x9E37_79B9_7F4A_7C15) >> shift)
    }

    private mutating func grow() {
        let old = slots
        slots = Array(repeating: Slot(key: SessionKey.zero, session: nil), count: old.count * 2)
        shift -= 1
        count = 0
        for slot in old {
            if let session = slot.session { updateValue(session, forKey: slot.key) }
        }
    }
}
