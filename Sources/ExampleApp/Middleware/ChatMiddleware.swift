import Foundation
import ReMVVM

/// The chat's middleware: each reacts to one action type, so every other action costs it one type
/// comparison (an untyped middleware's casts cost the example app's dispatch about a third).
public enum ChatMiddleware {
    /// The longest room or name, in characters.
    public static let maxNameLength = 64
    /// The longest post, in characters.
    public static let maxTextLength = 1_000
    /// A room or a name: 64 characters, 256 bytes (four per character, as most scripts and emoji need).
    public static let nameLimit = TextLimit(characters: maxNameLength, bytes: 256)
    /// A post: 1,000 characters, 8,000 bytes (eight per character, room for accents and emoji sequences). A room
    /// keeps ``ChatState/messageLimit`` posts, so the chat view stays under half a megabyte.
    public static let textLimit = TextLimit(characters: maxTextLength, bytes: 8_000)

    /// Every chat middleware, in order.
    public static let all: [any Middleware<AppState>] = [Join(), Post()]

    /// Blocks a join with an empty or over-long room or name, or a room that cannot be a topic name. A signed-in
    /// session joins under its identity's name (its `name` claim, else its subject), whatever name it sends.
    public struct Join: ActionMiddleware {
        public typealias State = AppState

        /// Checks joins.
        public init() {}

        public func handle(_ action: ChatAction.Join, context: inout MiddlewareContext<AppState>) -> MiddlewareResult {
            let room = action.room.trimmingCharacters(in: .whitespacesAndNewlines)
            let name = (context.identity.map { $0[claim: "name"] ?? $0.subject } ?? action.name)
                .trimmingCharacters(in: .whitespacesAndNewlines)
            for (what, value) in [("room", room), ("name", name)] {
                guard !value.isEmpty else { return .block(reason: "the \(what) is required") }
                if let reason = ChatMiddleware.nameLimit.violation(in: value, named: what) {
                    return .block(reason: reason)
                }
            }
            do {
                try TopicName.validate(ChatState.topic(of: room))
            } catch {
                return .block(reason: "the room cannot be a topic: \(error)")
            }
            return .next(ChatAction.Join(room: room, name: name))
        }
    }

    /// Publishes a post to the room's topic; blocks one outside a room, or empty or over-long.
    public struct Post: ActionMiddleware {
        public typealias State = AppState

        /// Checks and publishes posts.
        public init() {}

        public func handle(_ action: ChatAction.Post, context: inout MiddlewareContext<AppState>) -> MiddlewareResult {
            guard let room = context.state.chat.room else { return .block(reason: "join a room before posting") }
            let text = action.text.trimmingCharacters(in: .whitespacesAndNewlines)
            guard !text.isEmpty else { return .block(reason: "the text is empty") }
            if let reason = ChatMiddleware.textLimit.violation(in: text, named: "text") {
                return .block(reason: reason)
            }
            do {
                let message = ChatAction.Message(from: context.state.chat.name, text: text)
                try context.publish(message, to: ChatState.topic(of: room))
            } catch {
                return .block(reason: "cannot post to the room: \(error)")
            }
            return .next(action)
        }
    }
}
