/// A ``SlotTable`` of callbacks, its operations compiled here, for that one element type.
///
/// The server's deadline timer keeps every parked long-poll's timeout in one and cancels one per answer. Called
/// from the server's module, the generic table ran unspecialized: each removal looked up its slots' type
/// metadata and moved them through value witnesses, about 1,700 instructions where this takes about 330.
package struct CallbackTable: Sendable {
    package typealias Callback = @Sendable () -> Void

    private var table = SlotTable<Callback>()

    package init() {}

    /// How many callbacks the table holds.
    package var count: Int { table.count }

    /// Stores `callback` and returns its handle (never 0).
    package mutating func insert(_ callback: @escaping Callback) -> UInt64 {
        table.insert(callback)
    }

    /// Removes and returns the callback of `handle`; nil if it was removed already.
    @discardableResult
    package mutating func remove(_ handle: UInt64) -> Callback? {
        table.remove(handle)
    }

    /// Removes the callback of `handle` without handing it out (which would wrap it in a new closure); false if
    /// it was removed already.
    package mutating func discard(_ handle: UInt64) -> Bool {
        table.remove(handle) != nil
    }

    /// Removes every callback and returns them, in slot order.
    package mutating func removeAll() -> [Callback] {
        table.removeAll()
    }
}
