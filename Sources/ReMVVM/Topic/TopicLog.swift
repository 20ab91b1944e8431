public import Foundation

/// Where a ``TopicHub`` keeps each topic's retained history beyond its memory, and where the order of a
/// topic's messages comes from: the seam for durable and shared topic storage.
///
/// On one node the hub orders messages itself and the log only keeps them (the embedded SQLite
/// storage conforms). A log shared by several nodes (``isShared``) takes the order from its database
/// instead: ``append(topic:action:retaining:)`` returns the sequence the database gave, the hub reads
/// what other nodes appended with ``messages(of:after:)``, and ``watchTopics(_:)`` wakes it when they do.
public protocol TopicLog: Sendable {
    /// Whether several nodes append to this log: the hub then reads each topic from it when a session
    /// subscribes and when woken, instead of loading everything once (default false).
    var isShared: Bool { get }

    /// The retained messages of `topic` after `sequence`, oldest first, and the topic's last sequence
    /// (0 for a topic never published to). Used only when ``isShared``.
    func messages(of topic: String, after sequence: UInt64) throws -> (last: UInt64, entries: [TopicLogEntry])

    /// Calls `wake` whenever another node may have appended: with the topic and the sequence appended
    /// (the hub reads nothing when it has that one already, its own publish), or nil and nil when any topic
    /// may have changed (the log lost and found its wake-ups). A hint only: the hub reads the log. Default:
    /// never.
    func watchTopics(_ wake: @escaping @Sendable (_ topic: String?, _ sequence: UInt64?) -> Void)

    /// Every retained message of every topic, each topic's oldest first: read once, when the hub starts.
    func retainedTopicMessages() throws -> [TopicLogEntry]

    /// Appends one message to `topic`, keeps only its latest `retaining` messages, and returns the
    /// message's sequence number (one more than the topic's last); returns once the message is durable.
    func append(topic: String, action: Data, retaining: Int) throws -> UInt64

    /// Forgets the stored messages of the topics the hub dropped (``TopicSweep/dropped``), up to each one's
    /// last position, so that a message appended since stays. A shared log also keeps the topics with
    /// subscribers on this node (``TopicSweep/followed``) alive and forgets every topic that no node published
    /// to or kept alive for `retention`. Default: nothing.
    func forget(_ sweep: TopicSweep, retention: Duration) throws
}

extension TopicLog {
    /// A log of one node's own topics.
    public var isShared: Bool { false }

    /// The retained messages of `topic` after `sequence`, read from ``retainedTopicMessages()``.
    public func messages(of topic: String, after sequence: UInt64) throws -> (
        last: UInt64, entries: [TopicLogEntry]
    ) {
        let entries = try retainedTopicMessages().filter { $0.topic == topic }
        return (entries.last?.sequence ?? 0, entries.filter { $0.sequence > sequence })
    }

    /// Keeps everything.
    public func forget(_ sweep: TopicSweep, retention: Duration) throws {}

    /// Never wakes: nobody else appends.
    public func watchTopics(_ wake: @escaping @Sendable (_ topic: String?, _ sequence: UInt64?) -> Void) {}
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

/// What a ``TopicHub/sweep()`` found: the topics it dropped from memory and those with subscribers here.
public struct TopicSweep: Sendable, Equatable {
    /// A topic dropped from memory and its last position then.
    public struct Dropped: Sendable, Equatable {
        /// The topic.
        public var topic: String
        /// Its last message's position when it was dropped (0 for none).
        public var last: UInt64

        /// A dropped topic.
        public init(topic: String, last: UInt64) {
            self.topic = topic
            self.last = last
        }
    }

    /// The topics dropped: no subscriber and no message newer than the retention.
    public var dropped: [Dropped] = []
    /// The topics that have subscribers on this node.
    public var followed: [String] = []

    /// An empty sweep.
    public init(dropped: [Dropped] = [], followed: [String] = []) {
        self.dropped = dropped
        self.followed = followed
    }
}
