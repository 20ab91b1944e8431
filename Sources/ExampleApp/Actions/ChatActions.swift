import ReMVVM

/// The chat: join a room under a name, post to it, leave it. Rooms are topics (`chat/<room>`), so every
/// session in a room hears every post.
public enum ChatAction {
    /// Joins `room` as `name`; the room's recent messages arrive first. Blocked by ``ChatMiddleware`` when
    /// either is empty or longer than 64 characters.
    public struct Join: StoreAction, Equatable {
        public static let wireName = "chat/join"
        /// The room.
        public var room: String
        /// The name the others see.
        public var name: String
        /// Joins `room` as `name`.
        public init(room: String, name: String) {
            self.room = room
            self.name = name
        }
    }

    /// Leaves the room joined.
    public struct Leave: StoreAction, Equatable {
        public static let wireName = "chat/leave"
        /// Leaves.
        public init() {}
    }

    /// Posts `text` to the room joined; blocked without a room, or when empty or over 1,000 characters.
    public struct Post: StoreAction, Equatable {
        public static let wireName = "chat/post"
        /// What to say.
        public var text: String
        /// Posts `text`.
        public init(text: String) { self.text = text }
    }

    /// One message of a room, as every member receives it from the room's topic.
    public struct Message: StoreAction, Equatable {
        public static let wireName = "chat/message"
        /// Who posted it.
        public var from: String
        /// What they said.
        public var text: String
        /// A message from `from`.
        public init(from: String, text: String) {
            self.from = from
            self.text = text
        }
    }
}
