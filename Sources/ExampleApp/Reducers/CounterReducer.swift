import ReMVVM

/// The counter substate's reducers, one per action.
enum CounterReducer {
    static let reducer = AnyReducer<Int>(
        .on(CounterAction.Increase.self) { value, _ in value &+ 1 },
        .on(CounterAction.Decrease.self) { value, _ in value &- 1 },
        .on(CounterAction.Set.self) { _, action in action.value }
    )

    /// Version 2's: `counter/set` carries `count` (``CounterAction/SetCount``).
    static let reducerV2 = AnyReducer<Int>(
        .on(CounterAction.Increase.self) { value, _ in value &+ 1 },
        .on(CounterAction.Decrease.self) { value, _ in value &- 1 },
        .on(CounterAction.SetCount.self) { _, action in action.count }
    )
}
