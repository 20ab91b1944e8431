public import ReMVVMJSON
import Synchronization

/// One view's value as of a version, shared by every reader of the store.
///
/// The store creates a snapshot only when the view model really changed; its JSON forms are
/// computed on first use and then reused by every response, patch and stream that needs them.
/// The bytes and the tree are cached apart: dispatch answers only need the bytes, which are written
/// straight from the view model, and only patches pay for the tree.
@_spi(ReMVVMServer) public final class ViewSnapshot: Sendable {
    /// The view's name.
    @_spi(ReMVVMServer) public let name: String
    /// The first version at which the view had this value.
    @_spi(ReMVVMServer) public let version: UInt64
    /// The view model itself.
    @_spi(ReMVVMServer) public let viewModel: any ViewModel
    private let encoded = Mutex<Result<JSONValue, ViewEncodingError>?>(nil)
    private let serialized = Mutex<Result<[UInt8], ViewEncodingError>?>(nil)

    init(name: String, version: UInt64, viewModel: any ViewModel) {
        self.name = name
        self.version = version
        self.viewModel = viewModel
    }

    /// The view model as a JSON value, encoded once.
    @_spi(ReMVVMServer) public func json() throws(ViewEncodingError) -> JSONValue {
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
    ///
    /// Written by the byte encoder without building the tree; when it gives up, the tree is built (and kept
    /// for ``json()``) and serialized, which gives the same bytes or the error. Encoding runs under the lock,
    /// so concurrent first readers wait for one encoding instead of repeating it, and a failure is cached
    /// like a success.
    @_spi(ReMVVMServer) public func jsonBytes() throws(ViewEncodingError) -> [UInt8] {
        let result = serialized.withLock { cached in
            if let cached { return cached }
            let result: Result<[UInt8], ViewEncodingError>
            if let bytes = JSONValue.directSerialization(of: viewModel) {
                result = .success(bytes)
            } else {
                // Never takes `serialized`, so holding it while `json()` takes `encoded` cannot deadlock.
                do throws(ViewEncodingError) {
                    result = .success(try json().serialized())
                } catch {
                    result = .failure(error)
                }
            }
            cached = result
            return result
        }
        return try result.get()
    }
}

/// A view model that could not be encoded as JSON (for example a non-finite number).
@_spi(ReMVVMServer) public struct ViewEncodingError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The view whose model failed.
    @_spi(ReMVVMServer) public let view: String
    /// What the encoder said.
    @_spi(ReMVVMServer) public let underlying: String

    @_spi(ReMVVMServer) public var description: String { "view '\(view)' could not be encoded: \(underlying)" }
}
