/// A failure of the test client: timeout, refused connection, malformed response.
struct TestClientError: Error, CustomStringConvertible {
    let description: String
}
