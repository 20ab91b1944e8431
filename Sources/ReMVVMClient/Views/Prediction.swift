import ReMVVMJSON

/// A change an app predicts its action will make to one view, shown until the server's version with the action
/// arrives.
///
/// It is applied to the server's latest view each time that changes (rebased), so a change from another device
/// is never hidden by a prediction, and is dropped when its action is blocked or the replica holds its version.
struct Prediction: Sendable {
    /// The `Idempotency-Key` of the action it belongs to.
    let key: String
    /// The view it changes.
    let view: String
    /// The change, on the view's JSON; nil when it cannot apply (the view does not decode into the app's type).
    let change: @Sendable (JSONValue) -> JSONValue?
    /// The version holding the action, once the server answered.
    var heldAt: StoreVersion?

    /// A prediction that decodes the view into `Value`, lets `update` change it and encodes it back.
    init<Value: Codable & Sendable>(
        key: String, view: String, as type: Value.Type, update: @escaping @Sendable (inout Value) -> Void
    ) {
        self.key = key
        self.view = view
        self.change = { json in
            guard var value = try? json.decoded(as: Value.self) else { return nil }
            update(&value)
            return try? JSONValue(encoding: value)
        }
    }
}
