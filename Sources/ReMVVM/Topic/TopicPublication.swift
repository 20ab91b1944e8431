public import Foundation

/// A message on its way to a topic, checked and encoded: what a commit carries to the durable writer when the
/// hub posts through an outbox (``TopicOutbox``), so that it is stored in the same transaction as the
/// commit that published it.
public struct TopicPublication: Sendable {
    /// The topic.
    public let topic: String
    /// The action every subscriber receives.
    public let action: any StoreAction
    /// The action as its JSON wire envelope, as stored.
    public let encoded: Data

    /// A checked publication of `action` to `topic`.
    public init(topic: String, action: any StoreAction, encoded: Data) {
        self.topic = topic
        self.action = action
        self.encoded = encoded
    }
}

/// Where a ``TopicHub`` posts what is published from outside a session (a service, an effect) once durable
/// storage orders its topics: the group-commit writer, which gives each message its position in a transaction
/// of its own and hands it back to the hub (``TopicHub/deliver(durable:)``) before this returns.
public protocol TopicOutbox: Sendable {
    /// Stores `publications` and returns their positions once they are durable and handed to the hub.
    func post(_ publications: [TopicPublication]) throws -> [UInt64]
}
