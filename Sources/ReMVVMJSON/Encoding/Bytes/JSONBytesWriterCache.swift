/// One spare ``JSONBytesWriter`` kept between encodings, because allocating a writer, its frame stack, its
/// member list and its output buffer for every view model cost more than writing the view model.
enum JSONBytesWriterCache {
    private static let spare = SpareSlot<JSONBytesWriter>()

    /// A writer whose buffers hold more than this after an encoding is dropped rather than kept, so one huge
    /// view model does not pin its memory for the life of the process.
    static let maxKeptCapacity = 16 * 1024

    /// The spare writer, or a new one; either way empty and owned by the caller alone.
    static func take() -> JSONBytesWriter {
        spare.take() ?? JSONBytesWriter()
    }

    /// Empties `writer` and keeps it as the spare, unless something else still holds it (a value's
    /// `encode(to:)` that kept an encoder or container would otherwise write into a later encoding), its
    /// buffers grew too big, or the slot is already taken.
    static func recycle(_ writer: consuming JSONBytesWriter) {
        guard isKnownUniquelyReferenced(&writer), writer.state.capacity <= maxKeptCapacity else { return }
        writer.state.reset()
        spare.offer(writer)
    }
}
