/// Limits and hooks of one store.
public struct StoreConfiguration: Sendable {
    /// How many past values of each view are kept, so that a client behind by a few versions
    /// gets a patch rather than a reset.
    public var historyLimit: Int = 128
    /// How many effects may run at once; more are refused and reported (a session cannot
    /// exhaust the server's tasks).
    public var maxRunningEffects: Int = 64
    /// How many follow-up actions effects may dispatch within one second; more are dropped
    /// and reported, which cuts a runaway effect loop. The second is on the store's
    /// ``Services/clock``, so a test clock decides when it ends.
    public var maxFollowUpsPerSecond: Int = 1_000
    /// Told about every effect that failed or was refused. Called on the effect's task.
    public var onEffectError: @Sendable (EffectError) -> Void = { _ in }
    /// The most topics one session's state may subscribe to; those beyond are left out and reported.
    public var maxSubscriptions: Int = 16
    /// Told about every topic problem of a store: a publish its middleware requested that failed, a
    /// subscription over ``maxSubscriptions`` or with an invalid name.
    public var onTopicError: @Sendable (TopicError) -> Void = { _ in }
    /// Runs the wake-ups of large fan-outs (more than 64 waiters on one commit) off the dispatching thread. A
    /// server sets its own, whose workers it owns and stops; the default runs them on the dispatching thread.
    public var scheduler: any WorkScheduler = InlineScheduler()

    /// The defaults: 128 kept values per view, 64 running effects, 1,000 follow-ups per second, 16 topics, and
    /// wake-ups on the dispatching thread.
    public init() {}
}
