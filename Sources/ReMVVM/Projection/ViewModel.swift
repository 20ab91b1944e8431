/// A view's projection of the state: the only thing clients ever see.
///
/// View models are values computed from the state by a factory registered in ``Projections``;
/// equality lets the store tell whether a view really changed.
public protocol ViewModel: Encodable, Equatable, Sendable {}
