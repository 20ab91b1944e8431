/// Why a topic refused a publish or a subscription: a bad name, too large a message, too many topics.
///
/// The ``description`` names what was wrong, so a server can pass it on in a problem answer.
public struct TopicError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What kind of problem it is.
    public enum Kind: Sendable, Equatable {
        /// A topic name is empty, too long, or holds a character topics may not hold.
        case invalidName
        /// The action, encoded, is larger than ``TopicConfiguration/maxMessageBytes``.
        case messageTooLarge
        /// One publish named more than ``TopicConfiguration/maxTopicsPerPublish`` topics, or a state
        /// subscribed to more than ``StoreConfiguration/maxSubscriptions``.
        case tooManyTopics
        /// The action could not be encoded, or the topic log could not store it.
        case unavailable
    }

    /// What kind of problem it is.
    public let kind: Kind
    /// What was wrong, in words: names the topic and the limit.
    public let description: String

    /// A problem of `kind`, described by `description`.
    public init(_ kind: Kind, _ description: String) {
        self.kind = kind
        self.description = description
    }
}
