@_spi(ReMVVMServer) import ReMVVM

/// An action no reducer handles; ``HoldMiddleware`` holds it at a ``Gate``.
struct HoldAction: StoreAction, Equatable {
    static let wireName = "test/hold"
}
