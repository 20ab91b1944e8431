/// The clock effects sleep on; tests replace it with one that does not wait.
public enum ClockKey: ServiceKey {
    public static var defaultValue: any Clock<Duration> { ContinuousClock() }
}

extension Services {
    /// The clock effects use for delays and timeouts.
    public var clock: any Clock<Duration> {
        get { self[ClockKey.self] }
        set { self[ClockKey.self] = newValue }
    }
}
