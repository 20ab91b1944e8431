/// Which topics a state subscribes to: the app declares it once, and every store re-derives its
/// subscriptions after each commit that changed the declaration's input.
///
/// Subscriptions follow the state, as in Elm: joining a room is a state change, so is leaving it, and
/// a session restored from storage is subscribed again from its restored state with no extra code.
///
/// ```swift
/// // Subscribed to `chat/<room>` while a room is joined; re-derived only when `chat.room` changes.
/// let subscriptions = TopicSubscriptions<AppState>(from: \.chat.room) { room in
///     room.map { ["chat/\($0)"] } ?? []
/// }
/// ```
public struct TopicSubscriptions<State>: Sendable {
    /// Whether the declaration's input differs between two states: only then are the topics derived again.
    let inputChanged: @Sendable (_ old: State, _ new: State) -> Bool
    /// The topics `state` subscribes to.
    let topics: @Sendable (State) -> [String]

    /// Topics derived from a part of the state: re-derived only after a commit that changed that part.
    ///
    /// - Parameters:
    ///   - source: The part of the state the topics depend on (`\.chat.room`).
    ///   - topics: The topics subscribed to for that part's value; names are checked (``TopicName``), and an
    ///     invalid one is reported through ``StoreConfiguration/onTopicError`` and left out.
    public init<Input: Equatable & SendableMetatype>(
        from source: @escaping @Sendable (State) -> Input,
        _ topics: @escaping @Sendable (Input) -> [String]
    ) {
        inputChanged = { old, new in source(old) != source(new) }
        self.topics = { topics(source($0)) }
    }

    /// Topics derived from the whole state: re-derived after every commit.
    public init(_ topics: @escaping @Sendable (State) -> [String]) {
        inputChanged = { _, _ in true }
        self.topics = topics
    }
}
