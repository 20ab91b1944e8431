/// One member of an open object: its key, kept for sorting, and where its `"key":value` bytes begin.
struct JSONBytesMember {
    /// The key as the container was given it.
    let key: String
    /// The offset of the member's opening quote.
    let start: Int
    /// The offset just past the member's value; only filled in when the members are reordered.
    var end = 0
}

extension JSONBytesState {
    /// Writes the separator and `"key":` for a new member of the object at `handle`, recording the member so
    /// the object can be put into key order when it closes.
    mutating func beginMember(_ key: String, in handle: JSONBytesHandle) throws(JSONBytesUnsupported) {
        try activate(handle)
        guard case .object(let firstMember, let ordered) = frames[handle.index].state else {
            throw fail()
        }
        if members.count > firstMember, let previous = members.last {
            bytes.append(UInt8(ascii: ","))
            // Not strictly after the previous key: out of order, or written twice.
            if ordered && !previous.key.utf8.lexicographicallyPrecedes(key.utf8) {
                frames[handle.index].state = .object(firstMember: firstMember, ordered: false)
            }
        }
        members.append(JSONBytesMember(key: key, start: bytes.count))
        JSONValue.appendString(key, to: &bytes)
        bytes.append(UInt8(ascii: ":"))
    }

    /// Puts the members of a closing object into the UTF-8 byte order of their keys, as
    /// `JSONValue.serialize(into:)` writes them, and forgets them.
    ///
    /// Fails when two keys are equal as `String`s (which compares canonical equivalence, like the tree
    /// encoder's dictionary), because the tree keeps only the last write of such a key.
    mutating func finishMembers(from firstMember: Int, ordered: Bool) throws(JSONBytesUnsupported) {
        // One member cannot collide with another; most objects of one key end here.
        guard members.count > firstMember + 1 else {
            if members.count > firstMember {
                members.removeLast()
            }
            return
        }
        if members[firstMember...].contains(where: { $0.key.utf8.contains { $0 >= 0x80 } }) {
            // Non-ASCII keys can be canonically equal without being byte-equal ("é" and "e\u{301}",
            // "\u{212A}" and "K"), so only `String` equality finds them.
            var seen = Set<String>(minimumCapacity: members.count - firstMember)
            for member in members[firstMember...] where !seen.insert(member.key).inserted {
                throw fail()
            }
        }
        if !ordered {
            try reorderMembers(from: firstMember)
        }
        members.removeLast(members.count - firstMember)
    }

    /// Rewrites the bytes of the members from `firstMember` on in key order.
    private mutating func reorderMembers(from firstMember: Int) throws(JSONBytesUnsupported) {
        let contentStart = members[firstMember].start
        let contentEnd = bytes.count
        for index in firstMember..<members.count {
            // Each member but the last ends just before the comma that precedes the next one.
            members[index].end = index + 1 < members.count ? members[index + 1].start - 1 : contentEnd
        }
        members[firstMember...].sort { $0.key.utf8.lexicographicallyPrecedes($1.key.utf8) }
        scratch.removeAll(keepingCapacity: true)
        for index in firstMember..<members.count {
            if index > firstMember {
                // Byte-equal neighbours after sorting are a key written twice.
                if members[index].key.utf8.elementsEqual(members[index - 1].key.utf8) { throw fail() }
                scratch.append(UInt8(ascii: ","))
            }
            scratch.append(contentsOf: bytes[members[index].start..<members[index].end])
        }
        bytes.replaceSubrange(contentStart..<contentEnd, with: scratch)
    }
}
