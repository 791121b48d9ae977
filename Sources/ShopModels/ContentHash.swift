import Foundation

/// A fast content fingerprint for change detection (not for security).
public enum ContentHash {
    public static func fnv1a64(_ data: Data) -> String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        data.withUnsafeBytes { bytes in
            for byte in bytes {
                hash ^= UInt64(byte)
                hash &*= 0x0000_0100_0000_01B3
            }
        }
        return String(hash, radix: 16) + "-" + String(data.count)
    }
}
