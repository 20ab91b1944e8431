/// The app's routes, matched by method and path after the v1 API's own.
struct AppRouter: Sendable {
    /// What a request's method and path matched.
    enum Match {
        /// This route, with the pattern's parameters.
        case route(AppRoute, parameters: [String: String], label: Int)
        /// Routes with this path exist, for other methods.
        case wrongMethod(allowed: [String], label: Int)
    }

    let routes: [AppRoute]
    /// Each distinct pattern once, in the order first given: the routes' metric labels.
    let labels: [String]
    /// Each route's index in `labels`.
    private let labelOfRoute: [Int]

    init(_ routes: [AppRoute]) {
        self.routes = routes
        var labels: [String] = []
        labelOfRoute = routes.map { route in
            if let index = labels.firstIndex(of: route.path) { return index }
            labels.append(route.path)
            return labels.count - 1
        }
        self.labels = labels
    }

    var isEmpty: Bool { routes.isEmpty }

    /// The route for `method` and `path`, a 405's allowed methods, or nil when no pattern matches the path.
    func match(method: String, path: String) -> Match? {
        var allowed: [String] = []
        var label = 0
        for (index, route) in routes.enumerated() {
            guard let parameters = route.parameters(of: path) else { continue }
            if route.method == method { return .route(route, parameters: parameters, label: labelOfRoute[index]) }
            if !allowed.contains(route.method) { allowed.append(route.method) }
            label = labelOfRoute[index]
        }
        return allowed.isEmpty ? nil : .wrongMethod(allowed: allowed, label: label)
    }
}
