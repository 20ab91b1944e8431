/// The limits of a ``TopicHub``: how much history each topic keeps and how large a publish may be.
public struct TopicConfiguration: Sendable {
    /// How many of its latest messages a topic keeps: a new subscriber receives them first, and a
    /// session back from a restart catches up from them.
    public var retainedMessages = 50
    /// The largest action a publish carries, as its JSON wire envelope, in bytes (the server's default
    /// body limit).
    public var maxMessageBytes = 1 << 20
    /// The most topics one publish may name.
    public var maxTopicsPerPublish = 16
    /// The most messages one session takes from its inbox in one delivery (one commit): a busy topic
    /// shares the store's lock with the session's own dispatches, one bounded pass at a time.
    public var maxDeliveriesPerPass = 32
    /// How long a topic nobody subscribes to is kept after its last message: then ``TopicHub/tidy()`` drops
    /// it from memory and its messages from the topic log, so rooms nobody uses cost nothing. A topic
    /// published to again afterwards starts over at position 1.
    public var retention: Duration = .seconds(600)

    /// The defaults: 50 retained messages, 1 MiB per message, 16 topics per publish, 32 deliveries per pass,
    /// 10 minutes of retention.
    public init() {}
}
