import Foundation
import LiveObjects
import Synchronization

/// Which owners a merchant token may act for, decided at each use: the keys of the `--admin-keys` file as it is now,
/// so removing a key from the file takes its merchant tokens' power with it.
package protocol MerchantKeys: Sendable {
    /// Whether `owner` (`ssh:SHA256:…`) is an admin key now; a reason when it is not.
    func allows(_ owner: String) -> String?
}

/// The keys of an `authorized_keys` file, read again whenever the file changes; a file that cannot be read or no
/// longer parses allows no one until it is mended (merchant tokens fail closed).
package final class AdminKeysFile: MerchantKeys {
    private let path: String
    private let load: @Sendable (String) throws -> Set<String>
    private let log: @Sendable (String) -> Void
    private let state = Mutex<(stamp: [Int], fingerprints: Set<String>?)>(([], nil))

    /// `load` reads the file's fingerprints (`AdminKeys.load`, which the API module does not link).
    package init(path: String, load: @escaping @Sendable (String) throws -> Set<String>, log: @escaping @Sendable (String) -> Void) {
        self.path = path
        self.load = load
        self.log = log
    }

    package func allows(_ owner: String) -> String? {
        guard owner.hasPrefix("ssh:") else { return "a merchant token's owner is an SSH key (ssh:SHA256:…)" }
        guard let fingerprints = current() else {
            return "the admin keys file \(path) cannot be read; no merchant token is honoured until it is mended"
        }
        return fingerprints.contains(String(owner.dropFirst(4))) ? nil : "this merchant token's key is no longer in the admin keys file"
    }

    /// The fingerprints, read again when the file's inode, size or time of change differ from the last read.
    private func current() -> Set<String>? {
        var info = stat()
        guard stat(path, &info) == 0 else { return remember([], nil, "cannot read the admin keys file \(path): \(String(cString: strerror(errno)))") }
        let stamp = [Int(info.st_ino), Int(info.st_size), info.st_mtim.tv_sec, info.st_mtim.tv_nsec, info.st_ctim.tv_sec, info.st_ctim.tv_nsec]
        if let known = state.withLock({ $0.stamp == stamp ? $0.fingerprints : nil }) { return known }
        do {
            return remember(stamp, try load(path), "merchant tokens: read \(path)")
        } catch {
            return remember(stamp, nil, "merchant tokens: \(error)")
        }
    }

    private func remember(_ stamp: [Int], _ fingerprints: Set<String>?, _ line: String) -> Set<String>? {
        let changed = state.withLock { state -> Bool in
            defer { state = (stamp, fingerprints) }
            return state.stamp != stamp || state.fingerprints != fingerprints
        }
        if changed { log(line) }
        return fingerprints
    }
}

/// No owner allowed: an API started without `--admin-keys` takes no merchant token.
package struct NoMerchantKeys: MerchantKeys {
    package init() {}
    package func allows(_ owner: String) -> String? {
        "this API was started without --admin-keys, so it takes no merchant token"
    }
}

extension AdminKeysFile: LiveObject {}
