import ReMVVM

/// The counter's actions.
public enum CounterAction {
    /// Adds one.
    public struct Increase: StoreAction, Equatable {
        public static let wireName = "counter/increase"
        /// Adds one.
        public init() {}
    }

    /// Subtracts one.
    public struct Decrease: StoreAction, Equatable {
        public static let wireName = "counter/decrease"
        /// Subtracts one.
        public init() {}
    }

    /// Sets a value.
    public struct Set: StoreAction, Equatable {
        public static let wireName = "counter/set"
        /// The new value.
        public var value: Int
        /// Sets the counter to `value`.
        public init(value: Int) { self.value = value }
    }
}
