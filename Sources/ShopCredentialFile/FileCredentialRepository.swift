import Foundation
import LiveObjects
import ShopPorts
import Synchronization
import SystemPackage

#if canImport(Glibc)
    import Glibc
#endif

/// The keychain of this product: small secrets in one file, readable by its owner only.
///
/// The file is JSON, mode 0600, replaced atomically (write a temporary file, fsync, rename).
/// A file that group or others can read is refused, as ssh refuses a private key with open
/// permissions. Errors name the file and the problem, never a value.
public final class FileCredentialRepository: CredentialRepository {
    public let path: FilePath
    private let lock = Mutex(())

    public init(path: FilePath) { self.path = path }

    /// `$XDG_CONFIG_HOME/storefront/credentials`, else `~/.config/storefront/credentials`.
    public static func defaultPath(environment: [String: String]) -> FilePath {
        let base =
            environment["XDG_CONFIG_HOME"].flatMap { $0.isEmpty ? nil : FilePath($0) }
            ?? FilePath(environment["HOME"] ?? NSHomeDirectory()).appending(".config")
        return base.appending("storefront/credentials")
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
        let data: Data
        do {
            data = try ProtectedFile.read(path)
        } catch {
            switch error {
            case .missing: return [:]
            case .tooOpen(let mode): throw CredentialFileError.permissionsTooOpen(path: path, mode: mode)
            case .wrongOwner(let owner): throw CredentialFileError.wrongOwner(path: path, owner: owner)
            case .notRegularFile: throw CredentialFileError.unreadable(path: path, reason: "not a regular file")
            case .io(let reason): throw CredentialFileError.unreadable(path: path, reason: reason)
            }
        }
        if data.isEmpty { return [:] }
        guard let object = try? JSONSerialization.jsonObject(with: data), let values = object as? [String: String] else {
            throw CredentialFileError.damaged(path: path)
        }
        return values
    }

    private func writeAll(_ values: [String: String]) throws {
        let data = try JSONSerialization.data(withJSONObject: values, options: [.sortedKeys])
        do {
            try ProtectedFile.replace(path, with: data)
        } catch {
            guard case .io(let reason) = error else { throw CredentialFileError.unwritable(path: path, reason: "\(error)") }
            throw CredentialFileError.unwritable(path: path, reason: reason)
        }
    }
}

/// Why the credential file cannot be used. Never carries a stored value.
public enum CredentialFileError: Error, Equatable, CustomStringConvertible {
    case permissionsTooOpen(path: FilePath, mode: mode_t)
    case wrongOwner(path: FilePath, owner: uid_t)
    case damaged(path: FilePath)
    case unreadable(path: FilePath, reason: String)
    case unwritable(path: FilePath, reason: String)

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

extension FileCredentialRepository: LiveObject {}
