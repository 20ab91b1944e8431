/// A test store expectation that did not hold; its description shows the difference.
public struct TestStoreFailure: Error, Sendable, CustomStringConvertible {
    /// What was expected and what happened.
    public let description: String

    init(_ description: String) { self.description = description }
}
