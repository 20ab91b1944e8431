/// What happened to one action of a dispatch.
public enum ActionResult: Sendable, Equatable {
    /// The action went through the middleware and was reduced.
    case applied
    /// A middleware stopped the action; the state is unchanged by it.
    case blocked(reason: String)

    /// The results of a dispatch of one action that was applied, nearly every dispatch's, kept once.
    static let appliedAlone: [ActionResult] = [.applied]
}

/// The answer to a dispatch: the version it produced, what happened to each action, and the
/// requested views as of that version.
public struct DispatchOutcome: Sendable {
    /// The store's version right after this dispatch (unchanged if nothing was applied).
    public let version: UInt64
    /// One result per dispatched action, in order.
    public let results: [ActionResult]
    /// The requested views as of ``version``, in index order.
    @_spi(ReMVVMServer) public let views: [ViewSnapshot]
    /// The views this dispatch changed that were not requested, as of ``version`` (usually none): with
    /// ``views``, what a view budget checks, without reading the views the dispatch left alone.
    @_spi(ReMVVMServer) public let otherChanged: [ViewSnapshot]
    /// Whether the dispatch published to a topic: a session that hears the topic receives its own message
    /// moments later, in a version of its own, which its answer should show.
    @_spi(ReMVVMServer) public let published: Bool

    /// Whether at least one action was applied, so that a new version was committed.
    public var committed: Bool { results.contains(.applied) }
}
