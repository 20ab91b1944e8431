@testable import ReMVVMJSON

extension JSONPatch {
    /// The test oracle of ``JSONPatch/serializedDiff(fromSerialized:to:)``: the same rules run on two trees,
    /// operation values and all. This was the production differ before the byte differ replaced it; the byte
    /// differ must write exactly the bytes `treeDiff(from:to:).serialized()` gives for the parsed documents
    /// (bar the byte-comparison exceptions it documents).
    static func treeDiff(from old: JSONValue, to new: JSONValue) -> JSONPatch {
        var differ = JSONPatchDiffer()
        differ.diff(old, new)
        return JSONPatch(operations: differ.operations)
    }
}

/// The state of one `JSONPatch.treeDiff` run: the path being visited and the operations so far, each with an
/// estimate of its serialized size so that a container can be replaced whole when that is smaller.
struct JSONPatchDiffer {
    /// The operations found so far.
    private(set) var operations: [JSONPatchOperation] = []
    /// `cumulativeCost[i]` is the estimated size of `operations[0..<i]`, so a range costs one subtraction.
    private var cumulativeCost = [0]
    /// Tokens of the location being compared; a pointer is only built when an operation is emitted.
    private var tokens: [String] = []

    /// Fixed bytes of an operation object around its path and value: `{"op":"replace","path":"","value":}`.
    private static let operationOverhead = 34

    /// Appends the operations that turn `old` into `new` at the current location.
    mutating func diff(_ old: JSONValue, _ new: JSONValue) {
        switch (old, new) {
        case (.object(let oldMembers), .object(let newMembers)):
            let start = operations.count
            diffObjects(oldMembers, newMembers)
            replaceIfCheaper(since: start, with: new)
        case (.array(let oldElements), .array(let newElements)):
            let start = operations.count
            diffArrays(oldElements, newElements)
            replaceIfCheaper(since: start, with: new)
        default:
            if old != new {
                emit(.replace(path: pointer, value: new), valueCost: Self.estimatedSize(of: new))
            }
        }
    }

    private mutating func diffObjects(_ old: [String: JSONValue], _ new: [String: JSONValue]) {
        var removed: [String] = []
        var changed: [(key: String, old: JSONValue, new: JSONValue)] = []
        for (key, oldValue) in old {
            if let newValue = new[key] {
                if oldValue != newValue {
                    changed.append((key, oldValue, newValue))
                }
            } else {
                removed.append(key)
            }
        }
        var added: [(key: String, value: JSONValue)] = []
        if new.count != old.count - removed.count {
            for (key, value) in new where old[key] == nil {
                added.append((key, value))
            }
        }
        for key in Self.sorted(removed, by: \.self) {
            tokens.append(key)
            emit(.remove(path: pointer), valueCost: 0)
            tokens.removeLast()
        }
        for member in Self.sorted(changed, by: \.key) {
            tokens.append(member.key)
            diff(member.old, member.new)
            tokens.removeLast()
        }
        for member in Self.sorted(added, by: \.key) {
            tokens.append(member.key)
            emit(.add(path: pointer, value: member.value), valueCost: Self.estimatedSize(of: member.value))
            tokens.removeLast()
        }
    }

    private mutating func diffArrays(_ old: [JSONValue], _ new: [JSONValue]) {
        let shorter = min(old.count, new.count)
        var prefix = 0
        while prefix < shorter && old[prefix] == new[prefix] {
            prefix += 1
        }
        var suffix = 0
        while suffix < shorter - prefix && old[old.count - 1 - suffix] == new[new.count - 1 - suffix] {
            suffix += 1
        }
        let oldMiddle = old.count - suffix - prefix
        let newMiddle = new.count - suffix - prefix
        let paired = min(oldMiddle, newMiddle)
        for index in prefix..<(prefix + paired) {
            tokens.append(String(index))
            diff(old[index], new[index])
            tokens.removeLast()
        }
        for index in (prefix + paired)..<(prefix + newMiddle) {
            tokens.append(String(index))
            emit(.add(path: pointer, value: new[index]), valueCost: Self.estimatedSize(of: new[index]))
            tokens.removeLast()
        }
        for index in ((prefix + paired)..<(prefix + oldMiddle)).reversed() {
            tokens.append(String(index))
            emit(.remove(path: pointer), valueCost: 0)
            tokens.removeLast()
        }
    }

    /// Swaps the operations emitted since `start` for one `replace` of the current location when that is
    /// estimated to be smaller. Sizing `new` stops as soon as it passes the operations' cost, so the check
    /// costs no more than the operations it might save.
    private mutating func replaceIfCheaper(since start: Int, with new: JSONValue) {
        guard operations.count - start >= 2 else { return }
        let operationsCost = cumulativeCost[operations.count] - cumulativeCost[start]
        let replaceCost = Self.operationOverhead + pathCost
        let budget = operationsCost - replaceCost
        guard budget > 0, Self.estimatedSize(of: new, limit: budget) < budget else { return }
        operations.removeSubrange(start...)
        cumulativeCost.removeSubrange((start + 1)...)
        emit(.replace(path: pointer, value: new), valueCost: Self.estimatedSize(of: new))
    }

    private mutating func emit(_ operation: JSONPatchOperation, valueCost: Int) {
        operations.append(operation)
        let cost = Self.operationOverhead + pathCost + valueCost
        cumulativeCost.append(cumulativeCost[cumulativeCost.count - 1] + cost)
    }

    private var pointer: JSONPointer {
        JSONPointer(tokens: tokens)
    }

    private var pathCost: Int {
        tokens.reduce(0) { $0 + $1.utf8.count + 1 }
    }

    /// `items` in the UTF-8 byte order of their keys, the order serialization uses too.
    private static func sorted<Item>(_ items: [Item], by key: (Item) -> String) -> [Item] {
        items.count < 2 ? items : items.sorted { key($0).utf8.lexicographicallyPrecedes(key($1).utf8) }
    }

    /// Roughly how many bytes `value` serializes to, counting no further than just past `limit`.
    static func estimatedSize(of value: JSONValue, limit: Int = .max) -> Int {
        switch value {
        case .null, .bool(true): return 4
        case .bool(false): return 5
        case .int(let integer):
            var length = integer < 0 ? 2 : 1
            var rest = integer.magnitude / 10
            while rest > 0 {
                length += 1
                rest /= 10
            }
            return length
        case .double: return 12
        case .string(let string): return string.utf8.count + 2
        case .array(let elements):
            var size = 2
            for element in elements where size <= limit {
                size += estimatedSize(of: element, limit: limit - size) + 1
            }
            return size
        case .object(let members):
            var size = 2
            for (key, member) in members where size <= limit {
                size += key.utf8.count + 4 + estimatedSize(of: member, limit: limit - size)
            }
            return size
        }
    }
}
