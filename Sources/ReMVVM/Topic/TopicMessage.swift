/// One message of a topic: the action published and its place in the topic's total order.
public struct TopicMessage: Sendable {
    /// The topic it was published to.
    public let topic: String
    /// Its position in the topic: 1 for the first message ever published to it, then one more each time.
    public let sequence: UInt64
    /// The action every subscribed session receives.
    public let action: any StoreAction

    /// A message at `sequence` of `topic`.
    public init(topic: String, sequence: UInt64, action: any StoreAction) {
        self.topic = topic
        self.sequence = sequence
        self.action = action
    }
}
