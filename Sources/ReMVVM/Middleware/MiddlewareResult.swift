/// What a middleware decided about an action.
public enum MiddlewareResult: Sendable {
    /// Hand this action (the original or a replacement) to the next middleware, then the reducers.
    case next(any StoreAction)
    /// Stop here: nothing is reduced and the dispatcher is told why.
    case block(reason: String)
}
