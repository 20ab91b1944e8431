import MicroHTTP
@_spi(ReMVVMServer) import ReMVVM
import ReMVVMJSON

extension ViewSnapshot {
    /// The view's JSON when it is at most `maxBytes` long (``ServerConfiguration/maxViewBytes``); else the problem
    /// naming the view. Every answer that carries a view whole reads it here, so none carries one over the budget.
    func budgetedBytes(max maxBytes: Int) throws(Problem) -> [UInt8] {
        let bytes: [UInt8]
        do {
            bytes = try jsonBytes()
        } catch {
            throw .internalError(error.description)
        }
        guard bytes.count <= maxBytes else { throw .viewTooLarge(name, bytes: bytes.count, budget: maxBytes) }
        return bytes
    }
}

extension [ViewSnapshot] {
    /// `{name: viewModel}` for these snapshots, written straight into bytes (view names in UTF-8 order, as a
    /// serialized `JSONValue` object is); a view over `maxBytes` is the problem naming it.
    func viewsObjectBytes(max maxBytes: Int) throws(Problem) -> [UInt8] {
        let sorted = count < 2 ? self : self.sorted { $0.name.utf8.lexicographicallyPrecedes($1.name.utf8) }
        var views: [(name: String, json: [UInt8])] = []
        views.reserveCapacity(sorted.count)
        for snapshot in sorted { views.append((snapshot.name, try snapshot.budgetedBytes(max: maxBytes))) }
        var body: [UInt8] = []
        body.reserveCapacity(views.reduce(2) { $0 + $1.name.utf8.count + $1.json.count + 4 })
        body.append(UInt8(ascii: "{"))
        for (index, view) in views.enumerated() {
            if index > 0 { body.append(UInt8(ascii: ",")) }
            JSONValue.string(view.name).serialize(into: &body)
            body.append(UInt8(ascii: ":"))
            body += view.json
        }
        body.append(UInt8(ascii: "}"))
        return body
    }
}

extension Problem {
    /// The status of a view over its budget: 507 (Insufficient Storage), as the server cannot hold the representation
    /// the request leads to within its budget. A server error, not a client's: the request was valid (a dispatch's
    /// actions were even applied) and only the app can keep its view smaller; and a status no other API answer
    /// uses, so a dispatch answered with it is known to be applied (its `Idempotency-Key` is kept, never re-run).
    static let viewTooLargeStatus = 507

    /// A view whose JSON passed ``ServerConfiguration/maxViewBytes``: no answer carries it until it is smaller.
    static func viewTooLarge(_ view: String, bytes: Int, budget: Int) -> Problem {
        Problem(
            status: viewTooLargeStatus, slug: "view-too-large", title: "Insufficient Storage",
            detail:
                "view '\(view)' is \(bytes) bytes of JSON, over this server's budget of \(budget) bytes per view: "
                + "the app must keep it smaller; no answer, long-poll or event carries it until it is",
            extensions: ["view": .string(view), "bytes": .int(Int64(bytes)), "budget": .int(Int64(budget))])
    }

    /// A dispatch whose actions were applied, after which `problem`'s view is over its budget: the commit stands
    /// (it is logged, its effects and publications under way), so the answer names the version it reached.
    static func appliedButViewTooLarge(_ problem: Problem, version: String) -> Problem {
        var problem = problem
        problem.detail = "the actions were applied (version \(version)), but " + problem.detail
        problem.extensions["version"] = .string(version)
        problem.headers = ["Store-Version": version, "ETag": Cursor.entityTag(of: version)]
        return problem
    }
}
