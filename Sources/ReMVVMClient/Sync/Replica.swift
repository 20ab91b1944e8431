import ReMVVMJSON

/// The client's copy of the server's views and the version they are at.
///
/// A value-type state machine with no I/O: the sync loop feeds it what the server sent and carries out what it
/// answers (a stale change means: fetch the views whole). It only applies what the server sent; predictions live
/// beside it, in ``Predictions``.
struct Replica: Sendable {
    /// How many past versions to remember, to recognise a late duplicate.
    private static let history = 64

    /// The version the views are at; nil before the first snapshot.
    private(set) var version: StoreVersion?
    /// The views by name.
    private(set) var views: [String: JSONValue] = [:]
    /// Versions this replica was at before, the newest last.
    private var seen: [StoreVersion] = []

    /// What applying a change did.
    enum ChangeResult: Equatable {
        /// The views moved to the change's version.
        case applied
        /// The replica already had it.
        case ignored
        /// The change starts from another version, or its patch did not apply: fetch the views whole.
        case stale
    }

    /// Replaces everything with a full picture (a session read, a snapshot).
    mutating func applySnapshot(version: StoreVersion, views: [String: JSONValue]) {
        self.views = views
        move(to: version)
    }

    /// Applies `{name: {patch} | {full}}` entries from `from` to `to`.
    mutating func applyChange(from: StoreVersion?, to: StoreVersion, entries: [String: JSONValue]) -> ChangeResult {
        guard let from, from == version else {
            return to == version || seen.contains(to) || (version.map { to.isBehind($0) } ?? false) ? .ignored : .stale
        }
        guard let next = try? Self.apply(entries, to: views) else { return .stale }
        views = next
        move(to: to)
        return .applied
    }

    /// A reset: the server's full views win, whatever this replica's version.
    mutating func applyReset(to: StoreVersion, entries: [String: JSONValue]) {
        views = (try? Self.apply(entries, to: views)) ?? views
        seen = []
        move(to: to)
    }

    /// A dispatch answer's full views at `version`: taken when they are newer and cover every view this replica
    /// holds (a replayed answer may carry none); answers whether they were.
    mutating func applyDispatch(version: StoreVersion, views full: [String: JSONValue]) -> Bool {
        guard let current = self.version, current != version, !seen.contains(version), !version.isBehind(current),
            Set(views.keys).isSubset(of: full.keys)
        else { return false }
        views.merge(full) { _, new in new }
        move(to: version)
        return true
    }

    private mutating func move(to next: StoreVersion) {
        if let version, version != next {
            seen.append(version)
            if seen.count > Self.history { seen.removeFirst() }
        }
        version = next
    }

    /// `views` with each entry applied: `{"full": v}` replaces a view, `{"patch": [...]}` patches it.
    static func apply(_ entries: [String: JSONValue], to views: [String: JSONValue]) throws -> [String: JSONValue] {
        var next = views
        for (name, entry) in entries {
            if let full = entry["full"] {
                next[name] = full
            } else if let operations = entry["patch"] {
                next[name] = try JSONPatch(parsing: operations).apply(to: next[name] ?? .object([:]))
            } else {
                throw ClientError(.invalidAnswer, detail: "view '\(name)' has neither 'full' nor 'patch'")
            }
        }
        return next
    }
}
