import Foundation
import Synchronization
import StoreClients
#if canImport(Glibc)
import Glibc
#endif

/// The keychain of this product: small secrets in one file, readable by its owner only.
///
/// The file is JSON, mode 0600, replaced atomically (write a temporary file, fsync, rename).
/// A file that group or others can read is refused, as ssh refuses a private key with open
/// permissions. Errors name the file and the problem, never a value.
public final class FileCredentialStore: CredentialStore {
    public let path: String
    private let lock = Mutex(())

    public init(path: String) { self.path = path }

    /// `$XDG_CONFIG_HOME/storefront/credentials`, else `~/.config/storefront/credentials`.
    public static func defaultPath(environment: [String: String]) -> String {
        let base = environment["XDG_CONFIG_HOME"].flatMap { $0.isEmpty ? nil : $0 }
            ?? (environment["HOME"] ?? NSHomeDirectory()) + "/.config"
        return base + "/storefront/credentials"
    }

    public func string(forKey key: String) throws -> String? {
        try lock.withLock { _ in try readAll()[key] }
    }

    public func set(_ value: String, forKey key: String) throws {
        try lock.withLock { _ in
            var values = try readAll()
            values[key] = value
            try writeAll(values)
        }
    }

    public func removeValue(forKey key: String) throws {
        try lock.withLock { _ in
            var values = try readAll()
            guard values.removeValue(forKey: key) != nil else { return }
            try writeAll(values)
        }
    }

    // MARK: - File

    private func readAll() throws -> [String: String] {
        let descriptor = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)
        if descriptor < 0 {
            if errno == ENOENT { return [:] }
            throw CredentialFileError.unreadable(path: path, reason: String(cString: strerror(errno)))
        }
        defer { close(descriptor) }
        var info = stat()
        guard fstat(descriptor, &info) == 0 else { throw CredentialFileError.unreadable(path: path, reason: String(cString: strerror(errno))) }
        guard info.st_mode & S_IFMT == S_IFREG else { throw CredentialFileError.unreadable(path: path, reason: "not a regular file") }
        guard info.st_uid == geteuid() else { throw CredentialFileError.wrongOwner(path: path, owner: info.st_uid) }
        let mode = info.st_mode & 0o777
        guard mode & 0o077 == 0 else { throw CredentialFileError.permissionsTooOpen(path: path, mode: mode) }
        var data = Data()
        var buffer = [UInt8](repeating: 0, count: 16_384)
        while true {
            let count = read(descriptor, &buffer, buffer.count)
            if count < 0 {
                if errno == EINTR { continue }
                throw CredentialFileError.unreadable(path: path, reason: String(cString: strerror(errno)))
            }
            if count == 0 { break }
            data.append(contentsOf: buffer[0..<count])
        }
        if data.isEmpty { return [:] }
        guard let object = try? JSONSerialization.jsonObject(with: data), let values = object as? [String: String] else {
            throw CredentialFileError.damaged(path: path)
        }
        return values
    }

    private func writeAll(_ values: [String: String]) throws {
        let directory = (path as NSString).deletingLastPathComponent
        if mkdir(directory, 0o700) != 0, errno != EEXIST {
            // The parent may be missing too: let Foundation create the chain, still private.
            do {
                try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
            } catch {
                throw CredentialFileError.unwritable(path: path, reason: "cannot create \(directory)")
            }
        }
        let data = try JSONSerialization.data(withJSONObject: values, options: [.sortedKeys])
        let temporary = "\(path).tmp-\(getpid())"
        unlink(temporary)
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw CredentialFileError.unwritable(path: path, reason: String(cString: strerror(errno))) }
        var failure: String?
        data.withUnsafeBytes { bytes in
            var offset = 0
            while offset < bytes.count {
                let written = write(descriptor, bytes.baseAddress! + offset, bytes.count - offset)
                if written < 0 {
                    if errno == EINTR { continue }
                    failure = String(cString: strerror(errno))
                    return
                }
                offset += written
            }
        }
        // The umask may have narrowed the mode; it must be exactly 0600.
        if failure == nil, fchmod(descriptor, 0o600) != 0 { failure = String(cString: strerror(errno)) }
        if failure == nil, fsync(descriptor) != 0 { failure = String(cString: strerror(errno)) }
        close(descriptor)
        if let failure {
            unlink(temporary)
            throw CredentialFileError.unwritable(path: path, reason: failure)
        }
        guard rename(temporary, path) == 0 else {
            let reason = String(cString: strerror(errno))
            unlink(temporary)
            throw CredentialFileError.unwritable(path: path, reason: reason)
        }
        let directoryDescriptor = open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if directoryDescriptor >= 0 {
            fsync(directoryDescriptor)
            close(directoryDescriptor)
        }
    }
}

/// Why the credential file cannot be used. Never carries a stored value.
public enum CredentialFileError: Error, Equatable, CustomStringConvertible {
    case permissionsTooOpen(path: String, mode: mode_t)
    case wrongOwner(path: String, owner: uid_t)
    case damaged(path: String)
    case unreadable(path: String, reason: String)
    case unwritable(path: String, reason: String)

    public var description: String {
        switch self {
        case .permissionsTooOpen(let path, let mode):
            "Permissions \(String(mode, radix: 8).leftPadded(to: 4)) for '\(path)' are too open. It is required that your credential file is NOT accessible by others. Fix it with: chmod 600 '\(path)'"
        case .wrongOwner(let path, let owner):
            "'\(path)' belongs to uid \(owner), not to you (uid \(geteuid())); refusing to read it."
        case .damaged(let path):
            "the credential file '\(path)' is damaged (not a JSON object of strings); it was left as it is. Move it away to sign in again."
        case .unreadable(let path, let reason):
            "cannot read the credential file '\(path)': \(reason)"
        case .unwritable(let path, let reason):
            "cannot write the credential file '\(path)': \(reason)"
        }
    }
}

extension String {
    fileprivate func leftPadded(to width: Int) -> String {
        String(repeating: "0", count: max(0, width - count)) + self
    }
}
