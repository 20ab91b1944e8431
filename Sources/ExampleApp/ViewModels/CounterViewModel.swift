import ReMVVM

/// The counter as the view shows it: a string, as in ReMVVM's example.
public struct CounterViewModel: ViewModel {
    /// The value, formatted.
    public let counter: String

    /// Projects the counter substate.
    public init(_ value: Int) { counter = String(value) }
}
