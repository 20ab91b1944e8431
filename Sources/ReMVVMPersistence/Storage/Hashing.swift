import CLibCrypto

/// SHA-256 and a constant-time comparison, from OpenSSL's libcrypto.
///
/// Stored session tokens are SHA-256 hashes, so that a copy of the database hands out no
/// credentials; request bodies are remembered by their digest under their `Idempotency-Key`,
/// a fingerprint that means the same to the next process, unlike a seeded `Hasher`.
public enum Hashing {
    /// The SHA-256 digest of `bytes` (32 bytes).
    public static func sha256(_ bytes: [UInt8]) -> [UInt8] {
        var digest = [UInt8](repeating: 0, count: Int(SHA256_DIGEST_LENGTH))
        bytes.withUnsafeBufferPointer { input in
            digest.withUnsafeMutableBufferPointer { output in
                // Returns its `md` argument; it cannot fail for a buffer in memory.
                _ = SHA256(input.baseAddress, input.count, output.baseAddress)
            }
        }
        return digest
    }

    /// The SHA-256 digest of a string's UTF-8 bytes.
    public static func sha256(_ text: String) -> [UInt8] { sha256(Array(text.utf8)) }

    /// The SHA-256 digest of a session token as stored: 64 lowercase hex digits.
    public static func tokenHash(_ token: String) -> String { hex(sha256(token)) }

    /// Whether two byte strings are equal, in time that depends only on their length (for secrets).
    public static func constantTimeEqual(_ first: [UInt8], _ second: [UInt8]) -> Bool {
        guard first.count == second.count else { return false }
        guard !first.isEmpty else { return true }
        return first.withUnsafeBytes { left in
            second.withUnsafeBytes { right in CRYPTO_memcmp(left.baseAddress, right.baseAddress, left.count) == 0 }
        }
    }

    /// Bytes as lowercase hex digits.
    public static func hex(_ bytes: [UInt8]) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var text: [UInt8] = []
        text.reserveCapacity(bytes.count * 2)
        for byte in bytes {
            text.append(digits[Int(byte >> 4)])
            text.append(digits[Int(byte & 0x0F)])
        }
        return String(decoding: text, as: UTF8.self)
    }
}
