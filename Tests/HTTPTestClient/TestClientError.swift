/// A failure of the test client: timeout, refused connection, malformed response.
public struct TestClientError: Error, Sendable, CustomStringConvertible {
    /// What went wrong, for the test log.
    public let description: String

    /// An error saying `description`.
    public init(description: String) {
        self.description = description
    }
}
