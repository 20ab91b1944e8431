/// Something whose connection may be parked (suspended) and must learn when its client leaves.
protocol ParkedClient: AnyObject, Sendable {
    /// The client closed its side of the socket while the connection was parked.
    func clientDisappeared()
}
