import Foundation
import ReMVVM

/// Checks what a chat member sends and publishes posts to the room's topic.
///
/// Blocks a join with an empty or over-long room or name, a post outside a room or with an empty or
/// over-long text, and a `chat/message` sent by a client rather than received from a room.
public struct ChatMiddleware: Middleware {
    public typealias State = AppState

    /// The longest room or name, in characters.
    public static let maxNameLength = 64
    /// The longest post, in characters.
    public static let maxTextLength = 1_000

    /// Checks chat actions.
    public init() {}

    public func handle(_ action: any StoreAction, context: inout MiddlewareContext<AppState>) -> MiddlewareResult {
        switch action {
        case let join as ChatAction.Join: return self.join(join)
        case let post as ChatAction.Post: return self.post(post, context: &context)
        case is ChatAction.Message:
            return context.topic == nil
                ? .block(reason: "chat/message comes from a room; send chat/post") : .next(action)
        default: return .next(action)
        }
    }

    public func registerActions(in registry: inout ActionRegistry) {
        registry.register(ChatAction.Post.self)
    }

    private func join(_ action: ChatAction.Join) -> MiddlewareResult {
        let room = action.room.trimmingCharacters(in: .whitespacesAndNewlines)
        let name = action.name.trimmingCharacters(in: .whitespacesAndNewlines)
        for (what, value) in [("room", room), ("name", name)] {
            guard !value.isEmpty else { return .block(reason: "the \(what) is required") }
            guard value.count <= Self.maxNameLength else {
                return .block(reason: "the \(what) is longer than \(Self.maxNameLength) characters")
            }
        }
        do {
            try TopicName.validate(ChatState.topic(of: room))
        } catch {
            return .block(reason: "the room cannot be a topic: \(error)")
        }
        return .next(ChatAction.Join(room: room, name: name))
    }

    private func post(_ action: ChatAction.Post, context: inout MiddlewareContext<AppState>) -> MiddlewareResult {
        guard let room = context.state.chat.room else { return .block(reason: "join a room before posting") }
        let text = action.text.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !text.isEmpty else { return .block(reason: "the text is empty") }
        guard text.count <= Self.maxTextLength else {
            return .block(reason: "the text is longer than \(Self.maxTextLength) characters")
        }
        do {
            try context.publish(
                ChatAction.Message(from: context.state.chat.name, text: text), to: ChatState.topic(of: room))
        } catch {
            return .block(reason: "cannot post to the room: \(error)")
        }
        return .next(action)
    }
}
