import MicroHTTP
@_spi(ReMVVMServer) import ReMVVM
import ReMVVMPersistence
import Synchronization

/// Feeds one event stream from its session's change stream: one `patch` event per change of a
/// watched view, each with the version as its id, then `end` when the session ends.
///
/// It holds no task: it parks a change waiter, and the dispatch that wakes it writes the event
/// and parks it again.
final class EventSubscription: Sendable {
    private struct State {
        var cursor: UInt64
        var token: WaiterToken?
        var isEnded = false
    }

    private let feed: ChangeFeed
    private let stream: ResponseStream
    private let state: Mutex<State>
    /// With durability, each event is written once its version is on disk.
    private let durability: (any SessionPersistence)?

    init(feed: ChangeFeed, stream: ResponseStream, cursor: UInt64, durability: (any SessionPersistence)? = nil) {
        self.feed = feed
        self.stream = stream
        self.durability = durability
        state = Mutex(State(cursor: cursor))
    }

    private var session: Session { feed.session }

    /// Starts following changes after the cursor; stops when the stream ends.
    func start() {
        stream.onTermination { [self] in
            let token = state.withLock { state in
                state.isEnded = true
                return state.token
            }
            if let token { session.store.cancelWait(token) }
            session.touch()  // Released with the count: whoever sees it drop sees this use.
            session.openStreams.subtract(1, ordering: .releasing)
        }
        pump()
    }

    /// Parks a waiter after the cursor, sending what already changed first.
    private func pump() {
        while true {
            guard let cursor = state.withLock({ $0.isEnded ? nil : $0.cursor }) else { return }
            let registration = session.store.waitForChange(after: cursor, views: feed.views) { [self] change in
                if handle(change) { pump() }
            }
            switch registration {
            case .parked(let token):
                let ended = state.withLock { state in
                    state.token = token
                    return state.isEnded
                }
                if ended { session.store.cancelWait(token) }
                return
            case .ready(let change):
                guard handle(change) else { return }
            }
        }
    }

    /// Sends what a change brought; false when the stream is over.
    private func handle(_ change: StoreChange) -> Bool {
        guard case .changed = change else {
            // Moved: the client reconnects and reaches the node that took the session over.
            end(reason: session.hasMoved ? "moved" : "deleted")
            return false
        }
        guard let cursor = state.withLock({ $0.isEnded ? nil : $0.cursor }) else { return false }
        do {
            let answer = try feed.answer(since: session.cursor(cursor))
            state.withLock { $0.cursor = answer.to }
            guard answer.hasChanges else { return true }
            let event = answer.event
            guard let durability else { return stream.write(event) }
            // Barriers are answered in order, so events keep theirs; a write after the end is ignored.
            durability.whenDurable(session: session.id) { [stream] error in
                // Not stored, so never shown: the session moved, and the stream ends with it.
                if error?.isFenced != true { stream.write(event) }
            }
            return true
        } catch {
            // A watched view passed its budget (or could not be encoded): named in the end event. A client that
            // reconnects is refused with the problem until the view is smaller.
            end(reason: error.status == Problem.viewTooLargeStatus ? error.slug : "error")
            return false
        }
    }

    private func end(reason: String) {
        state.withLock { $0.isEnded = true }
        stream.finish(with: ServerSentEvent(event: "end", data: #"{"reason":"\#(reason)"}"#).bytes)
    }
}
