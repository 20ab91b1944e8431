import MicroHTTP
@_spi(ReMVVMServer) import ReMVVM
import ReMVVMJSON
import Synchronization

/// Patches and answer bodies of one session, computed once and shared by every reader.
///
/// When a dispatch wakes ten thousand long-polls that all watch the same views from the same
/// cursor, the first builds the answer and the rest reuse its bytes. Only what leads to the
/// newest version is kept: an answer is looked up by the version the store is at, so once a
/// later version exists nobody asks for the older answers again, and a session that is polled
/// at every version holds a handful of answers instead of a growing pile of bodies and
/// libmicrohttpd responses.
final class AnswerCache: Sendable {
    /// Identifies one answer: which views, from which cursor to which, and in which form.
    struct Key: Hashable, Sendable {
        let views: UInt64
        let from: UInt64
        let to: UInt64
        let kind: UInt8
    }

    /// The answers leading to one version.
    ///
    /// Everyone woken by one dispatch usually asks the same question, so the first answer has a slot of its
    /// own and the dictionary, with its allocation per version, is only for a second kind of question.
    private struct Answers {
        var to: UInt64 = 0
        var first: (key: Key, answer: ChangeFeed.Answer)?
        var more: [Key: ChangeFeed.Answer] = [:]

        var count: Int { (first == nil ? 0 : 1) + more.count }

        subscript(key: Key) -> ChangeFeed.Answer? {
            if let first, first.key == key { return first.answer }
            return more.isEmpty ? nil : more[key]
        }

        /// The answer for `key` as a second reader needs it: shared from now on, so that a dispatch waking many
        /// waiters builds one libmicrohttpd response for all of them but the first.
        ///
        /// Every answer kept leads to `to`, which is compared first: the first poll answered at a new version
        /// (with one poll per session, every poll) reads no entry, and the entries lie in cache lines of their own.
        mutating func sharedAnswer(for key: Key) -> ChangeFeed.Answer? {
            guard key.to == to else { return nil }
            return sharedEntry(for: key)
        }

        /// Not inlined: inlined, the compiler copied the first entry out before comparing `to`.
        @inline(never)
        private mutating func sharedEntry(for key: Key) -> ChangeFeed.Answer? {
            guard let answer = self[key] else { return nil }
            guard !answer.isShared else { return answer }
            let shared = answer.sharing()
            if let first, first.key == key { self.first = (key, shared) } else { more[key] = shared }
            return shared
        }

        mutating func insert(_ answer: ChangeFeed.Answer, for key: Key) {
            if first == nil { first = (key, answer) } else { more[key] = answer }
        }
    }

    /// One view's patches leading to its newest snapshot, by the version they start from; the first in a
    /// slot of its own, as with ``Answers``.
    private struct Patches {
        var to: UInt64
        var first: (from: UInt64, patch: [UInt8])
        var more: [UInt64: [UInt8]] = [:]

        var count: Int { 1 + more.count }

        subscript(from: UInt64) -> [UInt8]? {
            first.from == from ? first.patch : more.isEmpty ? nil : more[from]
        }
    }

    /// The newest patches of each view that has any, in the order the views first changed.
    ///
    /// A list, not a dictionary keyed by name: a session has a handful of views, and comparing a short name
    /// costs less than hashing it, on the path of every long-poll answer.
    private struct PatchesByView {
        var entries: [(view: String, patches: Patches)] = []

        var count: Int { entries.reduce(0) { $0 + $1.patches.count } }

        func index(of view: String) -> Int? {
            // Read in place, as the header lookups do: `firstIndex(where:)` would copy every entry it passes.
            entries.withUnsafeBufferPointer { entries in entries.indices.first { entries[$0].view == view } }
        }

        subscript(view: String) -> Patches? {
            index(of: view).map { entries[$0].patches }
        }
    }

    /// Most entries kept for one version: distinct cursors and view selections seldom come close.
    private static let capacity = 64
    private let answers = Mutex(Answers())
    private let patches = Mutex(PatchesByView())

    /// The answer cached under `key`, if any; from its second reader on, with a shared response.
    func cached(_ key: Key) -> ChangeFeed.Answer? {
        answers.withLock { $0.sharedAnswer(for: key) }
    }

    /// How many answers are kept (for tests).
    var answerCount: Int {
        answers.withLock { $0.count }
    }

    /// How many patches are kept over all views (for tests).
    var patchCount: Int {
        patches.withLock { $0.count }
    }

    /// The header fields of the answers cached for `version`, if any: the same as
    /// ``API/versionedHeaders(version:)`` writes for it, so the dispatch that made the version and woke
    /// the long-polls answers with them too instead of writing them again.
    func headers(at version: UInt64) -> (version: String, headers: HTTPHeaders)? {
        answers.withLock { answers -> (version: String, headers: HTTPHeaders)? in
            guard answers.to == version, let first = answers.first else { return nil }
            return (first.answer.version, first.answer.response.headers)
        }
    }

    /// The cached answer for `key`, or the one `build` makes (then cached, unless a later version
    /// was cached meanwhile).
    func answer<Failure: Error>(
        _ key: Key, build: () throws(Failure) -> ChangeFeed.Answer
    ) throws(Failure) -> ChangeFeed.Answer {
        if let cached = answers.withLock({ $0.sharedAnswer(for: key) }) { return cached }
        let built = try build()
        // Superseded answers are released after the lock, not under it.
        let superseded = answers.withLock { answers -> Answers? in
            guard key.to >= answers.to else { return nil }  // A later version came meanwhile.
            guard key.to > answers.to || answers.count >= Self.capacity else {
                answers.insert(built, for: key)
                return nil
            }
            var superseded = Answers(to: key.to, first: (key, built))
            swap(&superseded, &answers)
            return superseded
        }
        _ = consume superseded
        return built
    }

    /// The RFC 6902 patch from one snapshot of a view to a later one, as bytes, computed once.
    func patch(from old: ViewSnapshot, to new: ViewSnapshot) throws(ViewEncodingError) -> [UInt8] {
        let cached = patches.withLock { patches -> [UInt8]? in
            guard let kept = patches[new.name], kept.to == new.version else { return nil }
            return kept[old.version]
        }
        if let cached { return cached }
        // Straight from the snapshots' bytes (the answers have written them already). Snapshot bytes are always in
        // the form the differ reads; were they not, the client would be sent the whole view as one replace.
        let newBytes = try new.jsonBytes()
        let patch =
            JSONPatch.serializedDiff(fromSerialized: try old.jsonBytes(), to: newBytes)
            ?? JSONPatch.serializedReplacement(with: newBytes)
        let superseded = patches.withLock { patches -> Patches? in
            let fresh = Patches(to: new.version, first: (old.version, patch))
            guard let index = patches.index(of: new.name) else {
                patches.entries.append((new.name, fresh))
                return nil
            }
            let kept = patches.entries[index].patches
            if kept.to > new.version { return nil }  // A later snapshot came meanwhile: not worth keeping.
            if kept.to == new.version, kept.count < Self.capacity {
                patches.entries[index].patches.more[old.version] = patch
                return nil
            }
            patches.entries[index].patches = fresh
            return kept
        }
        _ = consume superseded
        return patch
    }
}
