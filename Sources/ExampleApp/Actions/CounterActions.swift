import Foundation
import ReMVVM

/// The counter's actions.
public enum CounterAction {
    /// Adds one.
    public struct Increase: StoreAction, Equatable {
        public static let wireName = "counter/increase"
        /// Adds one.
        public init() {}
    }

    /// Subtracts one.
    public struct Decrease: StoreAction, Equatable {
        public static let wireName = "counter/decrease"
        /// Subtracts one.
        public init() {}
    }

    /// Sets a value.
    public struct Set: StoreAction, Equatable {
        public static let wireName = "counter/set"
        /// The new value.
        public var value: Int
        /// Sets the counter to `value`.
        public init(value: Int) { self.value = value }
    }
}

extension CounterAction {
    /// Sets a value, as version 2 of the app sends it: `value` was renamed `count` (``ExampleApp/Version/v2``).
    ///
    /// Its wire name stays `counter/set`; its ``wireVersion`` is 2, and ``migrate(payload:from:)`` reads the
    /// `{"value": n}` that version 1 logged. A client still on version 1 may send `value` too.
    public struct SetCount: StoreAction, Equatable {
        public static let wireName = "counter/set"
        public static let wireVersion = 2
        /// The new value.
        public var count: Int

        /// Sets the counter to `count`.
        public init(count: Int) { self.count = count }

        private enum CodingKeys: String, CodingKey { case count, value }

        /// Reads `count`, or the `value` of a client still on version 1.
        public init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            if let count = try container.decodeIfPresent(Int.self, forKey: .count) {
                self.count = count
            } else {
                count = try container.decode(Int.self, forKey: .value)
            }
        }

        /// Writes `count`.
        public func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(count, forKey: .count)
        }

        /// Version 1's payload, `{"value": n}`.
        private struct Version1: Decodable { let value: Int }

        /// Reads a payload logged by version 1 of the app.
        public static func migrate(payload: Data, from version: Int) throws -> SetCount {
            SetCount(count: try JSONDecoder().decode(Version1.self, from: payload).value)
        }

        /// Writes a payload as version 1 of the app reads it, `{"value": n}`, while its nodes live.
        public static func downgrade(payload: Data, to version: Int) throws -> Data {
            let action = try JSONDecoder().decode(SetCount.self, from: payload)
            return Data(#"{"value":\#(action.count)}"#.utf8)
        }
    }
}
