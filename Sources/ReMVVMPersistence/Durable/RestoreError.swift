/// Why a stored session cannot be rebuilt: its records were written by a newer server, its state
/// no longer decodes, or its log is damaged.
public struct RestoreError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What is wrong, naming the record and the reason.
    public let message: String

    /// A restore failure described by `message`.
    public init(_ message: String) {
        self.message = message
    }

    /// The message.
    public var description: String { message }
}
