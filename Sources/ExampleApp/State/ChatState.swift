import ReMVVM

/// The chat substate: the room joined, under which name, and its latest messages.
public struct ChatState: Codable, Equatable, Sendable {
    /// The most messages kept (and shown).
    public static let messageLimit = 50

    /// The room joined, or nil.
    public var room: String?
    /// The name posted under.
    public var name: String = ""
    /// The latest messages of the room, oldest first, at most ``messageLimit``.
    public var messages: [ChatLine] = []

    /// Not in a room.
    public init() {}

    /// The topic a room's messages go through.
    public static func topic(of room: String) -> String { "chat/\(room)" }
}

/// One line of a chat.
public struct ChatLine: Codable, Equatable, Sendable {
    /// Who posted it.
    public var from: String
    /// What they said.
    public var text: String

    /// A line from `from`.
    public init(from: String, text: String) {
        self.from = from
        self.text = text
    }
}
