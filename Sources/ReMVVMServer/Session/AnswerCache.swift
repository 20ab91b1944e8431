import ReMVVM
import Synchronization

/// Patches and answer bodies of one session, computed once and shared by every reader.
///
/// When a dispatch wakes ten thousand long-polls that all watch the same views from the same
/// cursor, the first builds the answer and the rest reuse its bytes.
final class AnswerCache: Sendable {
    /// Identifies one answer: which views, from which cursor to which, and in which form.
    struct Key: Hashable, Sendable {
        let views: UInt64
        let from: UInt64
        let to: UInt64
        let kind: UInt8
    }

    private struct PatchKey: Hashable {
        let view: String
        let from: UInt64
        let to: UInt64
    }

    private static let capacity = 64
    private let answers = Mutex<[Key: ChangeFeed.Answer]>([:])
    private let patches = Mutex<[PatchKey: [UInt8]]>([:])

    /// The answer cached under `key`, if any.
    func cached(_ key: Key) -> ChangeFeed.Answer? {
        answers.withLock { $0[key] }
    }

    /// The cached answer for `key`, or the one `build` makes (then cached).
    func answer<Failure: Error>(
        _ key: Key, build: () throws(Failure) -> ChangeFeed.Answer
    ) throws(Failure) -> ChangeFeed.Answer {
        if let cached = answers.withLock({ $0[key] }) { return cached }
        let built = try build()
        answers.withLock { answers in
            if answers.count >= Self.capacity { answers.removeAll(keepingCapacity: true) }
            answers[key] = built
        }
        return built
    }

    /// The RFC 6902 patch from one snapshot of a view to a later one, as bytes, computed once.
    func patch(from old: ViewSnapshot, to new: ViewSnapshot) throws(ViewEncodingError) -> [UInt8] {
        let key = PatchKey(view: new.name, from: old.version, to: new.version)
        if let cached = patches.withLock({ $0[key] }) { return cached }
        let patch = JSONPatch.diff(from: try old.json(), to: try new.json()).serialized()
        patches.withLock { patches in
            if patches.count >= Self.capacity { patches.removeAll(keepingCapacity: true) }
            patches[key] = patch
        }
        return patch
    }
}
