import Foundation
import Synchronization

/// A topic message written in the same transaction as the commit that published it (the outbox): the storage
/// gives it the topic's next position (``StorageChange/publish(session:_:)``) and records it here, for the
/// writer to hand the message to the hub once the transaction is durable.
public final class StoredPublication: Sendable {
    /// The topic.
    public let topic: String
    /// The action as its JSON wire envelope.
    public let action: Data
    /// How many of the topic's latest messages the storage keeps (at least the last one).
    public let retaining: Int
    private let assigned = Mutex<UInt64?>(nil)

    /// A message for `topic`, keeping its latest `retaining`.
    public init(topic: String, action: Data, retaining: Int) {
        self.topic = topic
        self.action = action
        self.retaining = retaining
    }

    /// The position the storage gave the message in the transaction that wrote it; nil before.
    public var position: UInt64? {
        get { assigned.withLock { $0 } }
        set { assigned.withLock { $0 = newValue } }
    }
}
