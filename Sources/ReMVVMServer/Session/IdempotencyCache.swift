import MicroHTTP
import ReMVVMJSON
import ReMVVMPersistence

/// Remembers dispatch answers by `Idempotency-Key`, so a retried request is answered without
/// applying its actions again.
///
/// Only an answer's results and version are kept (``compact(_:limit:)``), never its views: a view may be
/// megabytes, and a session keeps hundreds of keys. A replay rebuilds the views from the store's history.
///
/// Bodies are told apart by their SHA-256 digest, which durable sessions store with the commit:
/// after a restart the cache is filled again from storage (``restore(_:epoch:)``).
struct IdempotencyCache {
    /// What to do with a request carrying a key.
    enum Decision {
        /// First time: run it, then ``finish(key:response:)``.
        case proceed
        /// Seen with the same body: send the stored answer.
        case replay(HTTPResponse)
        /// Seen with another body.
        case mismatch
        /// The first request with this key is still running.
        case inFlight
    }

    private enum Entry {
        case running(fingerprint: [UInt8])
        case done(fingerprint: [UInt8], response: HTTPResponse)
    }

    private var entries: [String: Entry] = [:]
    private var order: [String] = []
    private let limit: Int

    /// Whether a key is acceptable: 1 to 255 visible ASCII characters, spaces only inside (what the OpenAPI
    /// description's pattern `^[!-~]([ -~]*[!-~])?$` says).
    static func isValidKey(_ key: String) -> Bool {
        let bytes = key.utf8
        guard let first = bytes.first, let last = bytes.last, bytes.count <= 255 else { return false }
        let visible = UInt8(ascii: "!")...UInt8(ascii: "~")
        guard visible.contains(first), visible.contains(last) else { return false }
        return bytes.allSatisfy { $0 == UInt8(ascii: " ") || visible.contains($0) }
    }

    init(limit: Int) {
        self.limit = max(limit, 1)
    }

    /// Decides about a request with `key` and a body of this digest (``digest(_:)``), and marks a new key as running.
    mutating func begin(key: String, digest fingerprint: [UInt8]) -> Decision {
        switch entries[key] {
        case .running(let seen):
            return seen == fingerprint ? .inFlight : .mismatch
        case .done(let seen, let response):
            return seen == fingerprint ? .replay(response) : .mismatch
        case nil:
            insert(key, .running(fingerprint: fingerprint))
            return .proceed
        }
    }

    /// Puts back a key stored with its commit: its answer byte for byte, or, when the process
    /// stopped before the answer was stored (so no client got it), one naming the committed version.
    mutating func restore(_ stored: StoredIdempotencyKey, epoch: String) {
        let version = Cursor(epoch: epoch, number: stored.version).description
        var body: [UInt8]
        if let answer = stored.answer {
            body = Array(answer)
        } else {
            body = Array(#"{"results":[],"version":"#.utf8)
            JSONValue.string(version).serialize(into: &body)
            body += Array(#","views":{}}"#.utf8)
        }
        let response = HTTPResponse(status: 200, headers: API.versionedHeaders(version: version), body: .bytes(body))
        entries[stored.key] = nil
        order.removeAll { $0 == stored.key }
        insert(stored.key, .done(fingerprint: stored.digest, response: response))
    }

    private mutating func insert(_ key: String, _ entry: Entry) {
        if order.count >= limit {
            let oldest = order.removeFirst()
            entries[oldest] = nil
        }
        entries[key] = entry
        order.append(key)
    }

    /// The bytes the remembered answers and digests hold: what the budget bounds, for tests.
    var heldBytes: Int {
        entries.values.reduce(0) { total, entry in
            switch entry {
            case .running(let fingerprint): total + fingerprint.count
            case .done(let fingerprint, let response):
                if case .bytes(let body) = response.body {
                    total + fingerprint.count + body.count
                } else {
                    total + fingerprint.count
                }
            }
        }
    }

    /// Stores the answer of a request that ran.
    mutating func finish(key: String, digest: [UInt8], response: HTTPResponse) {
        guard entries[key] != nil else { return }
        entries[key] = .done(fingerprint: digest, response: response)
    }

    /// Forgets a key whose request was not applied (it may be retried).
    mutating func abandon(key: String) {
        entries[key] = nil
        order.removeAll { $0 == key }
    }

    /// What is kept of a dispatch answer `{"results":[...],"version":"...","views":{...}}`: the same with its
    /// views left empty, or, when that still passes `limit` bytes (a batch of hundreds of actions), with its
    /// results left empty too, so a key never holds more than about `limit` bytes.
    ///
    /// The parts are found by their keys: inside a JSON string a quote is always escaped, so the first
    /// `,"version":` and `,"views":` outside one are the answer's own.
    static func compact(_ body: [UInt8], limit: Int) -> [UInt8] {
        guard let views = body.firstRange(of: Self.viewsKey) else { return body }
        var kept = Array(body[..<views.lowerBound])
        kept += Self.viewsKey + Array("{}}".utf8)
        guard kept.count > limit, let version = kept.firstRange(of: Array(#","version":"#.utf8)) else { return kept }
        return Array(#"{"results":[]"#.utf8) + kept[version.lowerBound...]
    }

    /// `,"views":` as bytes: where an answer's views begin.
    static let viewsKey = Array(#","views":"#.utf8)

    /// The bytes of an answer kept with its views left empty (``compact(_:limit:)``), up to `"views":{`, so a
    /// replay can put the views back in; nil for an answer kept whole (older storage rows, or views it never had).
    static func viewlessPrefix(_ body: [UInt8]) -> ArraySlice<UInt8>? {
        let end = Self.viewsKey + Array("{}}".utf8)
        guard body.count >= end.count, body[(body.count - end.count)...].elementsEqual(end) else { return nil }
        return body[..<(body.count - 2)]
    }

    /// A request body's fingerprint: its SHA-256 digest, the same in every process.
    static func digest(_ body: [UInt8]) -> [UInt8] { Hashing.sha256(body) }
}
