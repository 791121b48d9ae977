import Foundation

/// A fresh path under the system's temporary directory, for a test's files; not created until used.
public enum TemporaryDirectory {
    public static func make() -> URL {
        FileManager.default.temporaryDirectory.appendingPathComponent("storefront-\(UUID().uuidString)")
    }
}
