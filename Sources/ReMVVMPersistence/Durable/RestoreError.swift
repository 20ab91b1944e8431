/// Why a stored session cannot be rebuilt: its records were written by a newer server, its state
/// no longer decodes, or its log is damaged.
public struct RestoreError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What is wrong, naming the record and the reason.
    public let message: String
    /// Whether a newer build wrote what this one cannot read (a state or action version above its own): a node
    /// of that build can, so the session is not lost, only not for this node.
    public let needsNewerBuild: Bool

    /// A restore failure described by `message`; `needsNewerBuild` when a newer build wrote what failed.
    public init(_ message: String, needsNewerBuild: Bool = false) {
        self.message = message
        self.needsNewerBuild = needsNewerBuild
    }

    /// The message.
    public var description: String { message }
}
