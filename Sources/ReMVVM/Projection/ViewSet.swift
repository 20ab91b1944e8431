/// A set of projections of one store, by index: what a long-poll or stream watches.
///
/// A bit set, so testing "did any watched view change" is one AND. A store has at most
/// ``ViewSet/capacity`` projections.
@_spi(ReMVVMServer) public struct ViewSet: Sendable, Hashable, Sequence {
    /// The most projections one store can register.
    @_spi(ReMVVMServer) public static let capacity = 64

    /// The raw bits: bit `i` stands for the projection at index `i`.
    @_spi(ReMVVMServer) public private(set) var bits: UInt64

    /// The empty set.
    @_spi(ReMVVMServer) public static let none = ViewSet(bits: 0)

    /// Creates a set from raw bits.
    @_spi(ReMVVMServer) public init(bits: UInt64) { self.bits = bits }

    /// Creates a set of projection indices.
    @_spi(ReMVVMServer) public init(indices: some Sequence<Int>) {
        bits = 0
        for index in indices { insert(index) }
    }

    /// The set of the first `count` projections.
    @_spi(ReMVVMServer) public static func all(_ count: Int) -> ViewSet {
        ViewSet(bits: count >= capacity ? .max : (UInt64(1) << UInt64(count)) - 1)
    }

    /// Whether the set holds no projection.
    @_spi(ReMVVMServer) public var isEmpty: Bool { bits == 0 }

    /// Whether the projection at `index` is in the set.
    @_spi(ReMVVMServer) public func contains(_ index: Int) -> Bool {
        index < Self.capacity && bits & (1 << UInt64(index)) != 0
    }

    /// Whether the two sets share a projection.
    @_spi(ReMVVMServer) public func intersects(_ other: ViewSet) -> Bool { bits & other.bits != 0 }

    /// Adds the projection at `index`.
    @_spi(ReMVVMServer) public mutating func insert(_ index: Int) {
        guard index >= 0, index < Self.capacity else { return }
        bits |= 1 << UInt64(index)
    }

    /// The projections in both sets.
    @_spi(ReMVVMServer) public func intersection(_ other: ViewSet) -> ViewSet { ViewSet(bits: bits & other.bits) }

    /// The projections in either set.
    @_spi(ReMVVMServer) public func union(_ other: ViewSet) -> ViewSet { ViewSet(bits: bits | other.bits) }

    /// The views of this set that are not in `other`.
    @_spi(ReMVVMServer) public func subtracting(_ other: ViewSet) -> ViewSet { ViewSet(bits: bits & ~other.bits) }

    /// Iterates the indices in increasing order.
    @_spi(ReMVVMServer) public func makeIterator() -> Iterator { Iterator(remaining: bits) }

    /// Yields the set's indices in increasing order, one bit at a time.
    @_spi(ReMVVMServer) public struct Iterator: IteratorProtocol {
        var remaining: UInt64

        @_spi(ReMVVMServer) public mutating func next() -> Int? {
            guard remaining != 0 else { return nil }
            let index = remaining.trailingZeroBitCount
            remaining &= remaining - 1
            return index
        }
    }

    /// How many projections the set holds.
    @_spi(ReMVVMServer) public var count: Int { bits.nonzeroBitCount }

    /// The index of the set's one projection; nil when it holds none or several.
    @_spi(ReMVVMServer) public var only: Int? {
        bits != 0 && bits & (bits - 1) == 0 ? bits.trailingZeroBitCount : nil
    }
}
