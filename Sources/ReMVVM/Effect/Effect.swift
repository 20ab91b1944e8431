/// An asynchronous side effect started by middleware and owned by the store.
struct Effect: Sendable {
    let id: String?
    let operation: @Sendable (EffectContext) async throws -> Void
}

/// A middleware's request about effects, carried out after the dispatch commits.
enum EffectRequest: Sendable {
    case start(Effect)
    case cancel(id: String)
}
