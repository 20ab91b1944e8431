import MicroHTTP
@_spi(ReMVVMServer) import ReMVVM

/// How a request proved which session it belongs to.
struct Credentials {
    /// The token presented, as the key it names: nil when it is not one a session could have (32 lowercase hex
    /// digits), which no session is found with.
    let token: SessionKey?
    /// True when the token came from the `remvvm_token` cookie, which a browser sends on its own.
    let fromCookie: Bool

    static let cookieName = "remvvm_token"

    init?(_ request: borrowing HTTPRequest) {
        if var header = request.headers["authorization"] {
            // Read where the header's bytes lie: no slice of it to make and parse again.
            let token = header.withUTF8 { bytes in
                Self.bearerToken(in: bytes).map { SessionKey(utf8: UnsafeBufferPointer(rebasing: bytes[$0])) }
            }
            guard let token else { return nil }
            // A bearer that is no session token (the app's own, a JWT) leaves the session's to the cookie.
            if token != nil || !request.headers.contains("cookie") {
                self.token = token
                fromCookie = false
                return
            }
        }
        for cookieHeader in request.headers.values(for: "cookie") {
            for pair in cookieHeader.split(separator: ";") {
                let parts = pair.split(separator: "=", maxSplits: 1)
                if parts.count == 2, parts[0].trimmingWhitespace() == Self.cookieName {
                    token = SessionKey(parts[1].trimmingBlanks())
                    fromCookie = true
                    return
                }
            }
        }
        return nil
    }

    /// Whether `request` carries no credentials at all: no `Authorization` field and no `remvvm_token` cookie.
    /// Such a request is told to authenticate (401); one with wrong credentials gets the 404 an unknown session
    /// gets, so nobody learns which sessions exist.
    static func areAbsent(in request: borrowing HTTPRequest) -> Bool {
        guard request.headers["authorization"] == nil else { return false }
        for cookieHeader in request.headers.values(for: "cookie") {
            for pair in cookieHeader.split(separator: ";") {
                if pair.split(separator: "=", maxSplits: 1).first?.trimmingWhitespace() == cookieName { return false }
            }
        }
        return true
    }

    /// The token of `Bearer <token>`: the scheme is case-insensitive (RFC 9110), blanks around the token
    /// are dropped.
    static func bearerToken(_ header: String) -> Substring? {
        var bytes = header
        guard let range = bytes.withUTF8(bearerToken(in:)) else { return nil }
        let utf8 = header.utf8
        let start = utf8.index(utf8.startIndex, offsetBy: range.lowerBound)
        return header[start..<utf8.index(start, offsetBy: range.count)]
    }

    /// Where the token of `Bearer <token>` is in the header's bytes.
    private static func bearerToken(in bytes: UnsafeBufferPointer<UInt8>) -> Range<Int>? {
        let text = ASCII.trimmingBlanks(bytes, in: 0..<bytes.count)
        guard let space = bytes[text].firstIndex(of: UInt8(ascii: " ")),
            ASCII.equalsLowercased(bytes[text.lowerBound..<space], "bearer")
        else { return nil }
        let token = ASCII.trimmingBlanks(bytes, in: (space + 1)..<text.upperBound)
        return token.isEmpty ? nil : token
    }
}

extension HTTPRequest {
    /// The views named in `?views=a,b`, or every view when absent or empty; an empty name in a list
    /// (`a,,b`, `a,`) is an unknown view, like any other.
    func viewSelection(of store: any ProjectedStore) throws(Problem) -> ViewSet {
        guard let list = queryValue("views"), !list.isEmpty else { return store.allViews }
        let selected =
            Self.isList(list)
            ? store.viewSet(
                named: list.split(separator: ",", omittingEmptySubsequences: false).map { $0.trimmingWhitespace() })
            : store.viewSet(named: list.trimmingWhitespace())  // The common case: one view, no list to allocate.
        switch selected {
        case .success(let views): return views
        case .failure(let error):
            let known = store.viewNames.joined(separator: ", ")
            throw Problem.badRequest("\(error); known views: \(known)", slug: "unknown-view")
        }
    }

    /// Whether `views` names more than one view (has a comma), read on the bytes where they are contiguous.
    private static func isList(_ views: String) -> Bool {
        views.utf8.withContiguousStorageIfAvailable { $0.contains(UInt8(ascii: ",")) }
            ?? views.utf8.contains(UInt8(ascii: ","))
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
        String(Substring(self).trimmingBlanks())
    }
}

extension String {
    /// The text without leading and trailing spaces and tabs: the string itself, not a copy, when it has none,
    /// as the values clients send almost always do.
    func trimmingWhitespace() -> String {
        guard let first = utf8.first, let last = utf8.last, ASCII.isBlank(first) || ASCII.isBlank(last) else {
            return self
        }
        return String(Substring(self).trimmingBlanks())
    }
}

extension Substring {
    /// The slice without leading and trailing spaces and tabs; shares the storage, allocates nothing.
    func trimmingBlanks() -> Substring {
        var slice = self
        while let first = slice.utf8.first, ASCII.isBlank(first) { slice = slice.dropFirst() }
        while let last = slice.utf8.last, ASCII.isBlank(last) { slice = slice.dropLast() }
        return slice
    }
}
