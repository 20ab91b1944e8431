import ReMVVM

/// The chat: the room joined (or null) and its latest messages, oldest first.
public struct ChatViewModel: ViewModel {
    /// One message.
    public struct Line: Codable, Equatable, Sendable {
        /// Who posted it.
        public let from: String
        /// What they said.
        public let text: String
    }

    /// The room joined, or nil.
    public let room: String?
    /// At most the last 50 messages, oldest first.
    public let messages: [Line]

    private enum CodingKeys: String, CodingKey { case room, messages }

    /// Writes `room` as null when no room is joined, rather than leaving it out.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        if let room { try container.encode(room, forKey: .room) } else { try container.encodeNil(forKey: .room) }
        try container.encode(messages, forKey: .messages)
    }

    /// Projects the chat substate.
    public init(_ chat: ChatState) {
        room = chat.room
        messages = chat.messages.map { Line(from: $0.from, text: $0.text) }
    }
}
