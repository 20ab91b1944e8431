import ReMVVM

/// The chat substate's reducers.
enum ChatReducer {
    static let reducer = AnyReducer<ChatState>(
        .on(ChatAction.Join.self) { chat, action in
            // Joining the same room again keeps its messages: the subscription does not change.
            var joined = chat.room == action.room ? chat : ChatState()
            joined.room = action.room
            joined.name = action.name
            return joined
        },
        .on(ChatAction.Leave.self) { _, _ in ChatState() },
        .on(ChatAction.Message.self) { chat, message in
            var chat = chat
            chat.messages.append(ChatLine(from: message.from, text: message.text))
            if chat.messages.count > ChatState.messageLimit {
                chat.messages.removeFirst(chat.messages.count - ChatState.messageLimit)
            }
            return chat
        }
    )
}
