import Synchronization

/// One spare object kept between uses, for scratch objects whose allocation costs more than the small job
/// they do (a view model's encoding, a small view's diff).
///
/// Taking and offering are one atomic exchange each, so threads never wait: a thread that finds the slot
/// empty (another thread holds the spare) makes a new object instead.
final class SpareSlot<Object: AnyObject & Sendable>: Sendable {
    /// The spare, retained while it sits here.
    private let spare = Atomic<Unmanaged<Object>?>(nil)

    /// The spare, now owned by the caller alone, or nil when there is none.
    func take() -> Object? {
        spare.exchange(nil, ordering: .acquiring)?.takeRetainedValue()
    }

    /// Keeps `object` as the spare unless the slot is already taken. The caller must have emptied it and
    /// must hold the only reference to it.
    func offer(_ object: consuming Object) {
        let retained = Unmanaged.passRetained(object)
        if !spare.compareExchange(expected: nil, desired: retained, ordering: .releasing).exchanged {
            retained.release()
        }
    }
}
