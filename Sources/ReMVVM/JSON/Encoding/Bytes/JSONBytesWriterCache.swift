import Synchronization

/// One spare ``JSONBytesWriter`` kept between encodings, because allocating a writer, its frame stack, its
/// member list and its output buffer for every view model cost more than writing the view model.
///
/// Taking and returning are one atomic exchange each, so threads never wait: a thread that finds the slot
/// empty (another encoding is using the spare) makes a new writer, as every encoding did before.
enum JSONBytesWriterCache {
    /// The spare writer, retained while it sits here.
    private static let spare = Atomic<Unmanaged<JSONBytesWriter>?>(nil)

    /// A writer whose buffers hold more than this after an encoding is dropped rather than kept, so one huge
    /// view model does not pin its memory for the life of the process.
    static let maxKeptCapacity = 16 * 1024

    /// The spare writer, or a new one; either way empty and owned by the caller alone.
    static func take() -> JSONBytesWriter {
        if let spare = spare.exchange(nil, ordering: .acquiring) {
            return spare.takeRetainedValue()
        }
        return JSONBytesWriter()
    }

    /// Empties `writer` and keeps it as the spare, unless something else still holds it (a value's
    /// `encode(to:)` that kept an encoder or container would otherwise write into a later encoding), its
    /// buffers grew too big, or the slot is already taken.
    static func recycle(_ writer: consuming JSONBytesWriter) {
        guard isKnownUniquelyReferenced(&writer), writer.state.capacity <= maxKeptCapacity else { return }
        writer.state.reset()
        let retained = Unmanaged.passRetained(writer)
        if !spare.compareExchange(expected: nil, desired: retained, ordering: .releasing).exchanged {
            retained.release()
        }
    }
}
