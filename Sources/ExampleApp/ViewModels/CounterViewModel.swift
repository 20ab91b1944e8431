import ReMVVM

/// The counter as the view shows it: a string, as in ReMVVM's example.
public struct CounterViewModel: ViewModel {
    /// The value, formatted.
    public let counter: String

    /// Projects the counter substate.
    public init(_ value: Int) { counter = String(value) }
}

/// The counter as version 2 of the app shows it: with its label.
public struct LabelledCounterViewModel: ViewModel {
    /// The value, formatted.
    public let counter: String
    /// What the counter is called.
    public let label: String

    /// Projects the counter and its label (``ExampleApp/defaultCounterLabel`` when the state has none).
    public init(_ state: AppState) {
        counter = String(state.counter)
        label = state.counterLabel ?? ExampleApp.defaultCounterLabel
    }
}
