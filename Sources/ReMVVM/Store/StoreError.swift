/// Why a store refused a dispatch.
public struct StoreError: Error, Sendable, Equatable, CustomStringConvertible {
    private enum Code: Sendable, Equatable {
        case closed
        case versionMismatch
    }

    private let code: Code
    /// The store's version when it refused.
    public let currentVersion: UInt64

    /// The store was closed (its session ended); nothing is dispatched any more.
    public static func closed(at version: UInt64) -> StoreError { StoreError(code: .closed, currentVersion: version) }

    /// The caller expected another version (an `If-Match` that no longer holds).
    public static func versionMismatch(current: UInt64) -> StoreError {
        StoreError(code: .versionMismatch, currentVersion: current)
    }

    /// Whether the store was closed.
    public var isClosed: Bool { code == .closed }
    /// Whether the expected version did not match.
    public var isVersionMismatch: Bool { code == .versionMismatch }

    public var description: String {
        switch code {
        case .closed: "the store is closed"
        case .versionMismatch: "the store is at version \(currentVersion), not the expected one"
        }
    }
}
