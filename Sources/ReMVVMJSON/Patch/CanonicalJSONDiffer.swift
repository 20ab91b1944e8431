/// The RFC 6902 differ: two documents in this library's compact serialization compared without building either
/// tree, the operations written straight into bytes, their values copied from the new document.
///
/// Its rules are ``JSONPatch/serializedDiff(fromSerialized:to:)``'s. The tests hold it to a differ on trees
/// (`JSONPatchDiffer`, a test oracle): the same member and element order, the same size estimates deciding
/// when a container is replaced whole, so it writes the bytes the oracle's patch serializes to.
/// Values are compared by their bytes, which for the canonical form is value equality, except for strings
/// equal only under Unicode canonical equivalence and for `0.0` against `-0.0`: those count as changed here.
///
/// Reading relies on the canonical form, which ``CanonicalJSONScanner`` checks before anything is compared;
/// anything else makes it give up (`nil`) rather than guess.
struct CanonicalJSONDiffer: ~Copyable {
    private let old: UnsafeBufferPointer<UInt8>
    private let new: UnsafeBufferPointer<UInt8>
    /// `[` and the operations so far, comma-separated.
    private(set) var output: [UInt8]
    /// Each operation's start in `output` (its separating comma included), and the estimated size of the
    /// operations up to and including it, as the oracle counts it.
    private var operations: [(start: Int, cumulativeCost: Int)] = []
    /// The current location as it is written in a patch: each token pointer-escaped, then JSON-escaped.
    private var path: [UInt8] = []
    /// The path cost of an operation: the unescaped length of every token plus one.
    private var pathCost = 0
    /// The members or elements of the containers being compared, one level after the other (a stack: each
    /// level appends its own and removes them when done), so no level allocates lists of its own.
    private var ranges: [Range<Int>] = []

    private static let operationOverhead = 34

    /// Where the working lists came from, and go back to when the diff is done.
    private let scratch: Scratch

    private init(old: UnsafeBufferPointer<UInt8>, new: UnsafeBufferPointer<UInt8>, scratch: Scratch) {
        self.old = old
        self.new = new
        self.scratch = scratch
        output = [UInt8(ascii: "[")]
        output.reserveCapacity(64)
        swap(&operations, &scratch.operations)
        swap(&path, &scratch.path)
        swap(&ranges, &scratch.ranges)
    }

    /// The patch document turning `old` into `new`, or nil when either is not in the canonical form.
    static func patch(from old: [UInt8], to new: [UInt8]) -> [UInt8]? {
        old.withUnsafeBufferPointer { old in
            new.withUnsafeBufferPointer { new in
                guard let oldEnd = CanonicalJSONScanner(old).valueEnd(from: 0), oldEnd == old.count,
                    let newEnd = CanonicalJSONScanner(new).valueEnd(from: 0), newEnd == new.count
                else { return nil }
                if let patch = singleReplace(old, new) { return patch }
                var differ = CanonicalJSONDiffer(old: old, new: new, scratch: Scratch.take())
                differ.diff(0..<oldEnd, 0..<newEnd)
                return differ.finish()
            }
        }
    }

    /// The patch when both documents are objects with the same names and one member's value changed (not an
    /// object into an object, nor an array into an array): a single `replace`, as the rules below would write
    /// it. That is the commonest change to a view (a counter, a flag, a title), and it needs neither the
    /// working lists nor the cost estimates. Nil for anything else.
    private static func singleReplace(_ old: UnsafeBufferPointer<UInt8>, _ new: UnsafeBufferPointer<UInt8>) -> [UInt8]?
    {
        // Both objects non-empty, so index 1 is each one's first member (its name's opening quote).
        guard old.count > 2, new.count > 2, old[0] == UInt8(ascii: "{"), new[0] == UInt8(ascii: "{") else {
            return nil
        }
        let oldScanner = CanonicalJSONScanner(old)
        let newScanner = CanonicalJSONScanner(new)
        var oldIndex: Int? = 1
        var newIndex: Int? = 1
        var changed: (name: Range<Int>, value: Range<Int>)?
        while let oldStart = oldIndex, let newStart = newIndex {
            guard let oldMember = oldScanner.member(at: oldStart), let newMember = newScanner.member(at: newStart),
                CanonicalJSONScanner.equal(old, oldMember.name, new, newMember.name)
            else { return nil }
            if !CanonicalJSONScanner.equal(old, oldMember.value, new, newMember.value) {
                let kinds = (old[oldMember.value.lowerBound], new[newMember.value.lowerBound])
                let isNested = kinds.0 == kinds.1 && (kinds.0 == UInt8(ascii: "{") || kinds.0 == UInt8(ascii: "["))
                guard changed == nil, !isNested else { return nil }
                changed = (newMember.name, newMember.value)
            }
            oldIndex = oldMember.next
            newIndex = newMember.next
        }
        guard oldIndex == nil, newIndex == nil, let changed else { return nil }
        var output: [UInt8] = []
        output.reserveCapacity(changed.name.count + changed.value.count + 40)
        output.append(utf8: #"[{"op":"replace","path":"/"#)
        appendPointerEscaped(new[changed.name], to: &output)
        output.append(utf8: #"","value":"#)
        output.append(contentsOf: UnsafeBufferPointer(rebasing: new[changed.value]))
        output.append(utf8: "}]")
        return output
    }

    /// The patch; the working lists go back to the spare scratch.
    private consuming func finish() -> [UInt8] {
        output.append(UInt8(ascii: "]"))
        operations.removeAll(keepingCapacity: true)
        // `path` and `ranges` are empty again: every level removes what it added. The scratch is read into a
        // local first: swapping with `self.scratch`'s lists would access `self` twice at once, which a build with
        // a sanitizer refuses.
        let scratch = self.scratch
        swap(&operations, &scratch.operations)
        swap(&path, &scratch.path)
        swap(&ranges, &scratch.ranges)
        Scratch.recycle(scratch)
        return output
    }

    /// The working lists of a diff, kept for the next one: allocating them cost about a quarter of diffing a
    /// small view, which is what most long-poll answers carry.
    // Safety: a scratch is used by one diff at a time, on one thread; it reaches another thread only through
    // the spare slot's atomic exchange, after the diff that used it gave its lists back.
    private final class Scratch: @unchecked Sendable {
        var operations: [(start: Int, cumulativeCost: Int)] = []
        var path: [UInt8] = []
        var ranges: [Range<Int>] = []

        private static let spare = SpareSlot<Scratch>()
        /// Lists that grew past this many elements (a huge view's) are dropped, not kept for the process's life.
        private static let maxKeptCapacity = 1024

        init() {
            operations.reserveCapacity(4)
            path.reserveCapacity(32)
            ranges.reserveCapacity(16)
        }

        static func take() -> Scratch { spare.take() ?? Scratch() }

        static func recycle(_ scratch: Scratch) {
            guard max(scratch.operations.capacity, scratch.path.capacity, scratch.ranges.capacity) <= maxKeptCapacity
            else { return }
            spare.offer(scratch)
        }
    }

    // MARK: - The rules

    /// Appends the operations turning `oldValue` into `newValue` at the current location.
    private mutating func diff(_ oldValue: Range<Int>, _ newValue: Range<Int>) {
        if CanonicalJSONScanner.equal(old, oldValue, new, newValue) { return }
        switch (old[oldValue.lowerBound], new[newValue.lowerBound]) {
        case (UInt8(ascii: "{"), UInt8(ascii: "{")):
            let start = operations.count
            diffObjects(oldValue, newValue)
            replaceIfCheaper(since: start, with: newValue)
        case (UInt8(ascii: "["), UInt8(ascii: "[")):
            let start = operations.count
            diffArrays(oldValue, newValue)
            replaceIfCheaper(since: start, with: newValue)
        default:
            emit("replace", value: newValue)
        }
    }

    /// Members missing from `new` removed, changed ones diffed, new ones added: each group in name order,
    /// found by merging the two (sorted) member lists three times.
    private mutating func diffObjects(_ oldObject: Range<Int>, _ newObject: Range<Int>) {
        // Names and values alternate in `ranges`: the old object's from `base`, the new one's from `middle`.
        let base = ranges.count
        CanonicalJSONScanner(old).appendMembers(of: oldObject, to: &ranges)
        let middle = ranges.count
        CanonicalJSONScanner(new).appendMembers(of: newObject, to: &ranges)
        let end = ranges.count
        defer { ranges.removeSubrange(base...) }
        for pass in Pass.allCases {
            var oldIndex = base
            var newIndex = middle
            while oldIndex < middle || newIndex < end {
                let order =
                    oldIndex == middle
                    ? 1
                    : newIndex == end
                        ? -1 : CanonicalJSONScanner.compareKeys(old, ranges[oldIndex], new, ranges[newIndex])
                switch (pass, order) {
                case (.removed, ..<0):
                    let token = pushKey(ranges[oldIndex], in: old)
                    emit("remove", value: nil)
                    popToken(token)
                case (.added, 1...):
                    let token = pushKey(ranges[newIndex], in: new)
                    emit("add", value: ranges[newIndex + 1])
                    popToken(token)
                case (.changed, 0):
                    let token = pushKey(ranges[newIndex], in: new)
                    diff(ranges[oldIndex + 1], ranges[newIndex + 1])
                    popToken(token)
                default:
                    break
                }
                if order <= 0 { oldIndex += 2 }
                if order >= 0 { newIndex += 2 }
            }
        }
    }

    private enum Pass: CaseIterable {
        case removed, changed, added
    }

    /// The common prefix and suffix kept, the elements between diffed pairwise, the rest added or removed.
    private mutating func diffArrays(_ oldArray: Range<Int>, _ newArray: Range<Int>) {
        let base = ranges.count
        CanonicalJSONScanner(old).appendElements(of: oldArray, to: &ranges)
        let oldCount = ranges.count - base
        CanonicalJSONScanner(new).appendElements(of: newArray, to: &ranges)
        let newCount = ranges.count - base - oldCount
        defer { ranges.removeSubrange(base...) }
        let oldElement = { (index: Int) in base + index }
        let newElement = { (index: Int) in base + oldCount + index }
        let shorter = min(oldCount, newCount)
        var prefix = 0
        while prefix < shorter
            && CanonicalJSONScanner.equal(old, ranges[oldElement(prefix)], new, ranges[newElement(prefix)])
        {
            prefix += 1
        }
        var suffix = 0
        while suffix < shorter - prefix
            && CanonicalJSONScanner.equal(
                old, ranges[oldElement(oldCount - 1 - suffix)], new, ranges[newElement(newCount - 1 - suffix)])
        {
            suffix += 1
        }
        let oldMiddle = oldCount - suffix - prefix
        let newMiddle = newCount - suffix - prefix
        let paired = min(oldMiddle, newMiddle)
        for index in prefix..<(prefix + paired) {
            let token = pushIndex(index)
            diff(ranges[oldElement(index)], ranges[newElement(index)])
            popToken(token)
        }
        for index in (prefix + paired)..<(prefix + newMiddle) {
            let token = pushIndex(index)
            emit("add", value: ranges[newElement(index)])
            popToken(token)
        }
        for index in ((prefix + paired)..<(prefix + oldMiddle)).reversed() {
            let token = pushIndex(index)
            emit("remove", value: nil)
            popToken(token)
        }
    }

    /// Swaps the operations since `start` for one `replace` of the current location when that is estimated
    /// to be smaller, with the size estimates.
    private mutating func replaceIfCheaper(since start: Int, with newValue: Range<Int>) {
        guard operations.count - start >= 2 else { return }
        let operationsCost = cumulativeCost(before: operations.count) - cumulativeCost(before: start)
        let budget = operationsCost - (Self.operationOverhead + pathCost)
        guard budget > 0, CanonicalJSONScanner(new).estimatedSize(of: newValue, limit: budget) < budget else {
            return
        }
        output.removeSubrange(operations[start].start...)
        operations.removeSubrange(start...)
        emit("replace", value: newValue)
    }

    private func cumulativeCost(before index: Int) -> Int {
        index == 0 ? 0 : operations[index - 1].cumulativeCost
    }

    /// Writes `{"op":…,"path":…[,"value":…]}` with the value's bytes copied from the new document.
    private mutating func emit(_ operation: StaticString, value: Range<Int>?) {
        let start = output.count
        if output.count > 1 { output.append(UInt8(ascii: ",")) }
        output.append(utf8: #"{"op":""#)
        output.append(utf8: operation)
        output.append(utf8: #"","path":""#)
        output += path
        output.append(UInt8(ascii: "\""))
        var valueCost = 0
        if let value {
            output.append(utf8: #","value":"#)
            output.append(contentsOf: UnsafeBufferPointer(rebasing: new[value]))
            valueCost = CanonicalJSONScanner(new).estimatedSize(of: value, limit: .max)
        }
        output.append(UInt8(ascii: "}"))
        let cost = cumulativeCost(before: operations.count) + Self.operationOverhead + pathCost + valueCost
        operations.append((start, cost))
    }

    // MARK: - The path

    /// Where a token starts in `path` (its `/` included), and its unescaped length: what `popToken` undoes.
    private typealias Token = (start: Int, length: Int)

    /// Appends a member name, given as its escaped bytes between the quotes in `document`.
    ///
    /// `~` and `/` are never JSON-escaped and no JSON escape contains them, so pointer-escaping the escaped
    /// bytes gives the JSON escape of the pointer-escaped name, which is what a patch carries.
    private mutating func pushKey(_ key: Range<Int>, in document: UnsafeBufferPointer<UInt8>) -> Token {
        let token = (start: path.count, length: CanonicalJSONScanner.unescapedLength(of: key, in: document))
        path.append(UInt8(ascii: "/"))
        Self.appendPointerEscaped(document[key], to: &path)
        pathCost += token.length + 1
        return token
    }

    /// Appends a member name's escaped bytes with `~` and `/` pointer-escaped (see ``pushKey(_:in:)``).
    private static func appendPointerEscaped(_ name: Slice<UnsafeBufferPointer<UInt8>>, to path: inout [UInt8]) {
        guard name.contains(where: { $0 == UInt8(ascii: "~") || $0 == UInt8(ascii: "/") }) else {
            path.append(contentsOf: UnsafeBufferPointer(rebasing: name))
            return
        }
        for byte in name {
            switch byte {
            case UInt8(ascii: "~"): path.append(utf8: "~0")
            case UInt8(ascii: "/"): path.append(utf8: "~1")
            default: path.append(byte)
            }
        }
    }

    private mutating func pushIndex(_ index: Int) -> Token {
        let start = path.count
        path.append(UInt8(ascii: "/"))
        path += String(index).utf8
        pathCost += path.count - start
        return (start, path.count - start - 1)
    }

    private mutating func popToken(_ token: Token) {
        pathCost -= token.length + 1
        path.removeSubrange(token.start...)
    }
}
