import MicroHTTP
import ReMVVM

/// How a request proved which session it belongs to.
struct Credentials {
    let token: String
    /// True when the token came from the `remvvm_token` cookie, which a browser sends on its own.
    let fromCookie: Bool

    static let cookieName = "remvvm_token"

    init?(_ request: HTTPRequest) {
        if let header = request.headers["authorization"] {
            let parts = header.split(separator: " ", maxSplits: 1)
            guard parts.count == 2, parts[0].lowercased() == "bearer" else { return nil }
            token = parts[1].trimmingWhitespace()
            fromCookie = false
            return
        }
        for cookieHeader in request.headers.values(for: "cookie") {
            for pair in cookieHeader.split(separator: ";") {
                let parts = pair.split(separator: "=", maxSplits: 1)
                if parts.count == 2, parts[0].trimmingWhitespace() == Self.cookieName {
                    token = parts[1].trimmingWhitespace()
                    fromCookie = true
                    return
                }
            }
        }
        return nil
    }
}

extension HTTPRequest {
    /// The views named in `?views=a,b`, or every view when absent or empty; an empty name in a list
    /// (`a,,b`, `a,`) is an unknown view, like any other.
    func viewSelection(of store: any ProjectedStore) throws(Problem) -> ViewSet {
        guard let list = queryValue("views"), !list.isEmpty else { return store.allViews }
        let names = list.split(separator: ",", omittingEmptySubsequences: false).map { $0.trimmingWhitespace() }
        switch store.viewSet(named: names) {
        case .success(let views): return views
        case .failure(let error):
            let known = store.viewNames.joined(separator: ", ")
            throw Problem.badRequest("\(error); known views: \(known)", slug: "unknown-view")
        }
    }

    /// Whether a cookie-authenticated request comes from a page of another site.
    var isCrossSite: Bool {
        if let site = headers["sec-fetch-site"], site != "same-origin", site != "none" { return true }
        if let origin = headers["origin"] {
            guard let host = headers["host"] else { return true }
            let originHost = origin.split(separator: "/", omittingEmptySubsequences: true).dropFirst().first
            return originHost.map(String.init) != host
        }
        return false
    }
}

extension StringProtocol {
    /// The text without leading and trailing spaces and tabs.
    func trimmingWhitespace() -> String {
        var slice = Substring(self)
        while let first = slice.first, first == " " || first == "\t" { slice = slice.dropFirst() }
        while let last = slice.last, last == " " || last == "\t" { slice = slice.dropLast() }
        return String(slice)
    }
}
