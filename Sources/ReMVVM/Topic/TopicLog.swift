public import Foundation

/// Where a ``TopicHub`` keeps each topic's retained history beyond its memory, and where the order of a
/// topic's messages comes from: the seam for durable and shared topic storage.
///
/// On one node the hub orders messages itself and the log only keeps them (the embedded SQLite
/// storage conforms). A log shared by several nodes takes the order from its database instead, which
/// is why ``append(topic:action:retaining:)`` returns the sequence number.
public protocol TopicLog: Sendable {
    /// Every retained message of every topic, each topic's oldest first: read once, when the hub starts.
    func retainedTopicMessages() throws -> [TopicLogEntry]

    /// Appends one message to `topic`, keeps only its latest `retaining` messages, and returns the
    /// message's sequence number (one more than the topic's last); returns once the message is durable.
    func append(topic: String, action: Data, retaining: Int) throws -> UInt64
}

/// One stored message of a topic: its position and its action as a JSON wire envelope.
public struct TopicLogEntry: Sendable, Equatable {
    /// The topic.
    public var topic: String
    /// The message's position in the topic.
    public var sequence: UInt64
    /// The action as `{"type": ..., "payload": ...}`.
    public var action: Data

    /// A stored message.
    public init(topic: String, sequence: UInt64, action: Data) {
        self.topic = topic
        self.sequence = sequence
        self.action = action
    }
}
