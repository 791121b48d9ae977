import Foundation
import NIOSSH

/// The keys `serve --admin-keys` lets into the merchant console, read from an OpenSSH `authorized_keys` file:
/// one key per line, blank lines and `#` comments skipped. A line with options (`from=`, `expiry-time=`, `no-pty`,
/// `command=`…) is refused by their names: the console would not honour them, and a key that looks restricted but is
/// not is worse than no key.
public struct AdminKeys: Sendable, Equatable {
    /// The keys' OpenSSH SHA-256 fingerprints.
    public private(set) var fingerprints: Set<String>

    public init(fingerprints: Set<String> = []) {
        self.fingerprints = fingerprints
    }

    /// The key types `authorized_keys` names: a line's key starts at the first of these.
    static let keyTypes: Set<String> = [
        "ssh-ed25519", "ssh-rsa", "ssh-dss", "ecdsa-sha2-nistp256", "ecdsa-sha2-nistp384", "ecdsa-sha2-nistp521",
        "sk-ssh-ed25519@openssh.com", "sk-ecdsa-sha2-nistp256@openssh.com",
    ]

    /// The key types the embedded server signs clients in with.
    static let acceptedTypes: Set<String> = ["ssh-ed25519", "ecdsa-sha2-nistp256", "ecdsa-sha2-nistp384", "ecdsa-sha2-nistp521"]

    /// Parses the text of an `authorized_keys` file; a line that holds no key is refused with its number.
    public static func parse(_ text: String) throws(AdminKeysError) -> AdminKeys {
        var keys = AdminKeys()
        for (index, raw) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let line = raw.trimmingCharacters(in: .whitespaces.union(CharacterSet(charactersIn: "\r")))
            guard !line.isEmpty, !line.hasPrefix("#") else { continue }
            let fields = line.split(whereSeparator: { $0 == " " || $0 == "\t" }).map(String.init)
            // Options may hold quoted spaces; the key is the first field that names a key type and is followed by one.
            guard let typeIndex = fields.indices.first(where: { keyTypes.contains(fields[$0]) && $0 + 1 < fields.count }) else {
                throw .noKey(line: index + 1)
            }
            guard typeIndex == 0 else {
                throw .options(line: index + 1, names: Self.optionNames(fields[..<typeIndex].joined(separator: " ")))
            }
            let type = fields[typeIndex]
            guard let blob = Data(base64Encoded: fields[typeIndex + 1]), Self.blobType(blob) == type else {
                throw .badKey(line: index + 1, type: type)
            }
            // Only the key types this server signs clients in with can ever reach the console.
            guard (try? NIOSSHPublicKey(openSSHPublicKey: "\(type) \(fields[typeIndex + 1])")) != nil else {
                throw Self.acceptedTypes.contains(type) ? .badKey(line: index + 1, type: type) : .unsupported(line: index + 1, type: type)
            }
            keys.fingerprints.insert(SSHPublicKeyIdentity.fingerprint(ofKeyBlob: blob))
        }
        return keys
    }

    /// The names of the options in an `authorized_keys` line's options field: `from="a,b",no-pty` → from, no-pty.
    static func optionNames(_ options: String) -> [String] {
        var names: [String] = []
        var current = ""
        var quoted = false
        for character in options + "," {
            if character == "\"" { quoted.toggle() }
            if character == ",", !quoted {
                let name = current.prefix { $0 != "=" }.trimmingCharacters(in: .whitespaces)
                if !name.isEmpty { names.append(String(name.prefix(40))) }
                current = ""
            } else {
                current.append(character)
            }
        }
        return names
    }

    /// Reads and parses the file at `path`.
    public static func load(_ path: String) throws(AdminKeysError) -> AdminKeys {
        let text: String
        do { text = try String(contentsOfFile: path, encoding: .utf8) } catch { throw .unreadable(path: path, reason: error.localizedDescription) }
        do { return try parse(text) } catch { throw error.inFile(path) }
    }

    /// The key type a public key blob starts with (an SSH string: a 4-byte length, then the name).
    private static func blobType(_ blob: Data) -> String? {
        let bytes = [UInt8](blob)
        guard bytes.count >= 4 else { return nil }
        let length = Int(bytes[0]) << 24 | Int(bytes[1]) << 16 | Int(bytes[2]) << 8 | Int(bytes[3])
        guard length > 0, length <= 64, bytes.count >= 4 + length else { return nil }
        return String(decoding: bytes[4..<(4 + length)], as: UTF8.self)
    }
}

/// Why the admin keys file could not be used.
public enum AdminKeysError: Error, Equatable, CustomStringConvertible {
    case unreadable(path: String, reason: String)
    case noKey(line: Int, path: String? = nil)
    case badKey(line: Int, type: String, path: String? = nil)
    /// A key of a type the embedded server does not sign clients in with (RSA, DSA, security keys).
    case unsupported(line: Int, type: String, path: String? = nil)
    /// A key with `authorized_keys` options, which the console does not honour.
    case options(line: Int, names: [String], path: String? = nil)

    func inFile(_ path: String) -> AdminKeysError {
        switch self {
        case .noKey(let line, _): .noKey(line: line, path: path)
        case .badKey(let line, let type, _): .badKey(line: line, type: type, path: path)
        case .unsupported(let line, let type, _): .unsupported(line: line, type: type, path: path)
        case .options(let line, let names, _): .options(line: line, names: names, path: path)
        case .unreadable: self
        }
    }

    public var description: String {
        switch self {
        case .unreadable(let path, let reason): "cannot read the admin keys file \(path): \(reason)"
        case .noKey(let line, let path):
            "\(path ?? "admin keys"), line \(line): no public key (expected a line of authorized_keys, such as \"ssh-ed25519 AAAA… name\")"
        case .badKey(let line, let type, let path): "\(path ?? "admin keys"), line \(line): the \(type) key is not valid base64 of a \(type) key"
        case .unsupported(let line, let type, let path):
            "\(path ?? "admin keys"), line \(line): \(type) keys cannot sign in to this SSH server; list an Ed25519 or ECDSA key"
        case .options(let line, let names, let path):
            "\(path ?? "admin keys"), line \(line): the options \(names.joined(separator: ", ")) are not honoured by the merchant console; "
                + "list the key alone (restrict who reaches the port with a firewall instead)"
        }
    }
}
