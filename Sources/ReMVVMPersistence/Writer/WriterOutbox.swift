@_spi(ReMVVMServer) import ReMVVM
import Synchronization

/// The hub's way to the group-commit writer for what is published from outside a session: weakly, since the
/// writer holds the hub (to deliver what it wrote) and the hub holds this.
final class WriterOutbox: TopicOutbox {
    private struct Weak {
        weak var writer: GroupCommitWriter?
    }

    private let target: Mutex<Weak>

    init(_ writer: GroupCommitWriter) {
        target = Mutex(Weak(writer: writer))
    }

    func post(_ publications: [TopicPublication]) throws -> [UInt64] {
        guard let writer = target.withLock({ $0.writer }) else { throw StorageError.closed }
        return try writer.post(publications)
    }
}
