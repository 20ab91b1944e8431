/// Elements kept in numbered slots that are reused, each found again by the handle its insertion returned.
///
/// The tables a parked long-poll sits in (the parked registry, the disconnect watcher, the deadline timer) are
/// looked up once per answer, by a key the poll already holds. A dictionary of ten thousand entries costs each
/// lookup a hash and about three cold cache lines (its bitmap, key and value); a slot costs no hash and one
/// line. A handle carries its slot's generation, so a handle whose element was removed (and whose slot may hold
/// another element since) finds nothing. Like a dictionary, it keeps the room its largest population took.
package struct SlotTable<Element> {
    fileprivate struct Slot {
        var element: Element?
        /// Bumped at every removal; never 0, so no handle is 0.
        var generation: UInt32
    }

    private var slots: [Slot] = []
    /// Empty slots, the most recently emptied last: reused first, while their line may still be cached.
    private var free: [UInt32] = []

    /// How many elements the table holds.
    package private(set) var count = 0

    package init() {}

    /// Whether the table holds no element.
    package var isEmpty: Bool { count == 0 }

    /// Stores `element` in a free slot and returns its handle (never 0).
    package mutating func insert(_ element: Element) -> UInt64 {
        count += 1
        if let index = free.popLast() {
            slots[Int(index)].element = element
            return Self.handle(index: index, generation: slots[Int(index)].generation)
        }
        precondition(slots.count < Int(UInt32.max), "SlotTable is full")
        slots.append(Slot(element: element, generation: 1))
        return Self.handle(index: UInt32(slots.count - 1), generation: 1)
    }

    /// Removes and returns the element of `handle`; nil if it was removed already (or never was one of this
    /// table's).
    @discardableResult
    package mutating func remove(_ handle: UInt64) -> Element? {
        let index = Int(truncatingIfNeeded: handle & 0xFFFF_FFFF)
        let generation = UInt32(truncatingIfNeeded: handle >> 32)
        guard index < slots.count, slots[index].generation == generation, let element = slots[index].element else {
            return nil
        }
        slots[index].element = nil
        slots[index].generation = generation == .max ? 1 : generation + 1
        free.append(UInt32(index))
        count -= 1
        return element
    }

    /// Removes every element and returns them, in slot order; their handles find nothing afterwards.
    package mutating func removeAll() -> [Element] {
        var removed: [Element] = []
        removed.reserveCapacity(count)
        for index in slots.indices where slots[index].element != nil {
            if let element = remove(Self.handle(index: UInt32(index), generation: slots[index].generation)) {
                removed.append(element)
            }
        }
        return removed
    }

    /// Every element, in slot order.
    package var elements: [Element] {
        var elements: [Element] = []
        elements.reserveCapacity(count)
        for slot in slots {
            if let element = slot.element { elements.append(element) }
        }
        return elements
    }

    private static func handle(index: UInt32, generation: UInt32) -> UInt64 {
        UInt64(generation) << 32 | UInt64(index)
    }
}

extension SlotTable: Sendable where Element: Sendable {}
extension SlotTable.Slot: Sendable where Element: Sendable {}
