import MicroHTTP
@_spi(ReMVVMServer) import ReMVVM

extension API {
    /// A dispatch that published to topics, whose answer is shown again once its own messages came back: the
    /// poster of a chat message sees it in the answer to its post, as every other member sees it.
    struct OwnMessages: Sendable {
        let views: ViewSet
        let results: [ActionResult]
        /// The version the dispatch committed.
        let version: UInt64
    }

    /// Sends `response`, or, when the session has moved past the dispatch (its own topic messages delivered), the
    /// same results with the views as they are now, once that version is stored too.
    func reshow(
        _ response: HTTPResponse, _ own: OwnMessages?, session: Session,
        _ send: @escaping @Sendable (HTTPResponse) -> Void
    ) {
        guard let own, response.status == 200 else {
            send(response)
            return
        }
        let (version, snapshots) = session.store.views(own.views)
        guard version > own.version else {
            send(response)
            return
        }
        let cursor = session.cursor(version).description
        guard
            let body = try? Self.dispatchBody(
                results: own.results, views: snapshots, version: cursor, maxViewBytes: configuration.maxViewBytes)
        else {
            send(response)
            return
        }
        let shown = HTTPResponse(status: 200, headers: Self.versionedHeaders(version: cursor), body: .bytes(body))
        // The dispatch's own version is durable; the later one is shown only once it is too.
        whenStored(version, of: session) { problem in send(problem == nil ? shown : response) }
    }
}
