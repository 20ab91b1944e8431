import Synchronization

/// One view's value as of a version, shared by every reader of the store.
///
/// The store creates a snapshot only when the view model really changed; its JSON form is
/// computed on first use and then reused by every response, patch and stream that needs it.
public final class ViewSnapshot: Sendable {
    /// The view's name.
    public let name: String
    /// The first version at which the view had this value.
    public let version: UInt64
    /// The view model itself.
    public let viewModel: any ViewModel
    private let encoded = Mutex<Result<JSONValue, ViewEncodingError>?>(nil)
    private let serialized = Mutex<[UInt8]?>(nil)

    init(name: String, version: UInt64, viewModel: any ViewModel) {
        self.name = name
        self.version = version
        self.viewModel = viewModel
    }

    /// The view model as a JSON value, encoded once.
    public func json() throws(ViewEncodingError) -> JSONValue {
        let result = encoded.withLock { cached in
            if let cached { return cached }
            let result: Result<JSONValue, ViewEncodingError>
            do {
                result = .success(try JSONValue(encoding: viewModel))
            } catch {
                result = .failure(ViewEncodingError(view: name, underlying: "\(error)"))
            }
            cached = result
            return result
        }
        return try result.get()
    }

    /// The view model as compact JSON bytes (sorted keys), serialized once.
    public func jsonBytes() throws(ViewEncodingError) -> [UInt8] {
        if let bytes = serialized.withLock({ $0 }) { return bytes }
        let bytes = try json().serialized()
        serialized.withLock { $0 = bytes }
        return bytes
    }
}

/// A view model that could not be encoded as JSON (for example a non-finite number).
public struct ViewEncodingError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The view whose model failed.
    public let view: String
    /// What the encoder said.
    public let underlying: String

    public var description: String { "view '\(view)' could not be encoded: \(underlying)" }
}
