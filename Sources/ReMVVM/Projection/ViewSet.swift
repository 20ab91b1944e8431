/// A set of projections of one store, by index: what a long-poll or stream watches.
///
/// A bit set, so testing "did any watched view change" is one AND. A store has at most
/// ``ViewSet/capacity`` projections.
package struct ViewSet: Sendable, Hashable, Sequence {
    /// The most projections one store can register.
    package static let capacity = 64

    /// The raw bits: bit `i` stands for the projection at index `i`.
    package private(set) var bits: UInt64

    /// The empty set.
    package static let none = ViewSet(bits: 0)

    /// Creates a set from raw bits.
    package init(bits: UInt64) { self.bits = bits }

    /// Creates a set of projection indices.
    package init(indices: some Sequence<Int>) {
        bits = 0
        for index in indices { insert(index) }
    }

    /// The set of the first `count` projections.
    package static func all(_ count: Int) -> ViewSet {
        ViewSet(bits: count >= capacity ? .max : (UInt64(1) << UInt64(count)) - 1)
    }

    /// Whether the set holds no projection.
    package var isEmpty: Bool { bits == 0 }

    /// Whether the projection at `index` is in the set.
    package func contains(_ index: Int) -> Bool { index < Self.capacity && bits & (1 << UInt64(index)) != 0 }

    /// Whether the two sets share a projection.
    package func intersects(_ other: ViewSet) -> Bool { bits & other.bits != 0 }

    /// Adds the projection at `index`.
    package mutating func insert(_ index: Int) {
        guard index >= 0, index < Self.capacity else { return }
        bits |= 1 << UInt64(index)
    }

    /// The projections in both sets.
    package func intersection(_ other: ViewSet) -> ViewSet { ViewSet(bits: bits & other.bits) }

    /// The projections in either set.
    package func union(_ other: ViewSet) -> ViewSet { ViewSet(bits: bits | other.bits) }

    /// Iterates the indices in increasing order.
    package func makeIterator() -> Iterator { Iterator(remaining: bits) }

    /// Yields the set's indices in increasing order, one bit at a time.
    package struct Iterator: IteratorProtocol {
        var remaining: UInt64

        package mutating func next() -> Int? {
            guard remaining != 0 else { return nil }
            let index = remaining.trailingZeroBitCount
            remaining &= remaining - 1
            return index
        }
    }

    /// How many projections the set holds.
    package var count: Int { bits.nonzeroBitCount }

    /// The index of the set's one projection; nil when it holds none or several.
    package var only: Int? {
        bits != 0 && bits & (bits - 1) == 0 ? bits.trailingZeroBitCount : nil
    }
}
