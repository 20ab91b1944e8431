import Synchronization

/// What the transport refused or cut on its own, counted since the server started, for a metrics endpoint
/// (``HTTPServer/statistics``). Each count is of one kind of answer the transport gave without the handler.
public struct TransportStatistics: Sendable, Equatable {
    /// Connections answered 429 and closed on opening: their address already held
    /// ``HTTPServerConfiguration/perClientConnectionLimit`` connections.
    public var connectionsOverClientLimit = 0
    /// Connections answered 408 and closed because a request head took longer than
    /// ``HTTPServerConfiguration/requestHeadTimeout``.
    public var requestHeadTimeouts = 0
    /// Connections answered 408 and closed because a request body took longer than
    /// ``HTTPServerConfiguration/requestBodyTimeout``.
    public var requestBodyTimeouts = 0
    /// Requests answered 400 for two `Content-Length` fields that differ.
    public var conflictingContentLengths = 0
    /// Requests answered 413 for a body over ``HTTPServerConfiguration/maxBodySize``, declared or received.
    public var bodiesTooLarge = 0
    /// Event streams ended because a write would have taken all streams' unsent bytes over
    /// ``HTTPServerConfiguration/streamBufferBudget`` while the stream still held unsent bytes.
    public var streamsEndedOverBudget = 0
    /// Event stream responses answered 503 instead, the streams' unsent bytes being over the budget.
    public var streamsRefusedOverBudget = 0
    /// Bytes all event streams hold written but not yet sent, now (a gauge).
    public var streamBufferedBytes = 0

    /// All zero.
    public init() {}
}

/// The live counters behind ``TransportStatistics``: relaxed atomics, bumped on the paths that refuse.
final class TransportCounters: Sendable {
    let connectionsOverClientLimit = Atomic<Int>(0)
    let requestHeadTimeouts = Atomic<Int>(0)
    let requestBodyTimeouts = Atomic<Int>(0)
    let conflictingContentLengths = Atomic<Int>(0)
    let bodiesTooLarge = Atomic<Int>(0)
    let streamsEndedOverBudget = Atomic<Int>(0)
    let streamsRefusedOverBudget = Atomic<Int>(0)

    /// The counts now, with the streams' unsent bytes from `budget`.
    func snapshot(streams budget: StreamBudget) -> TransportStatistics {
        var statistics = TransportStatistics()
        statistics.connectionsOverClientLimit = connectionsOverClientLimit.load(ordering: .relaxed)
        statistics.requestHeadTimeouts = requestHeadTimeouts.load(ordering: .relaxed)
        statistics.requestBodyTimeouts = requestBodyTimeouts.load(ordering: .relaxed)
        statistics.conflictingContentLengths = conflictingContentLengths.load(ordering: .relaxed)
        statistics.bodiesTooLarge = bodiesTooLarge.load(ordering: .relaxed)
        statistics.streamsEndedOverBudget = streamsEndedOverBudget.load(ordering: .relaxed)
        statistics.streamsRefusedOverBudget = streamsRefusedOverBudget.load(ordering: .relaxed)
        statistics.streamBufferedBytes = budget.buffered
        return statistics
    }
}
