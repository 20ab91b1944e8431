/// Logged with every action a session received from a topic: the topic and the message's position.
///
/// The store writes it into the commit beside the action, so a durable session's log says how far it
/// read each topic, and a session rebuilt from that log resumes each topic after the last message it
/// received, neither losing nor repeating one. Reducers never see it.
public struct TopicReceipt: StoreAction, Equatable {
    public static let wireName = "topic/receipt"
    /// The topic.
    public var topic: String
    /// The position of the message received.
    public var sequence: UInt64

    /// A receipt for message `sequence` of `topic`.
    public init(topic: String, sequence: UInt64) {
        self.topic = topic
        self.sequence = sequence
    }
}

/// Dispatched into a session that missed messages of a topic: it was away longer than the topic's
/// retained history reaches, so the messages after ``after`` up to ``resumedAt`` are gone.
///
/// Like a cursor's reset: the session is told, never left with a silent gap. A reducer may handle it
/// (a chat can show "some messages were missed"); the messages from ``resumedAt`` on follow.
public struct TopicGap: StoreAction, Equatable {
    public static let wireName = "topic/gap"
    /// The topic.
    public var topic: String
    /// The last position the session had received.
    public var after: UInt64
    /// The first position it receives next.
    public var resumedAt: UInt64

    /// A gap in `topic` between `after` and `resumedAt`.
    public init(topic: String, after: UInt64, resumedAt: UInt64) {
        self.topic = topic
        self.after = after
        self.resumedAt = resumedAt
    }
}
