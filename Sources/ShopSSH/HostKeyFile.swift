import Crypto
import Foundation
import NIOSSH
import ShopCredentialFile
import SystemPackage

/// Why the host key could not be loaded or created. The file is never changed on an error.
public enum HostKeyError: Error, CustomStringConvertible, Equatable, Sendable {
    case tooOpen(path: FilePath, mode: Int)
    case unreadable(path: FilePath, reason: String)
    case notOpenSSHKey(path: FilePath)
    case encrypted(path: FilePath)
    case unsupportedType(path: FilePath, type: String)
    case damaged(path: FilePath, reason: String)
    case cannotWrite(path: FilePath, reason: String)

    public var description: String {
        switch self {
        case .tooOpen(let path, let mode):
            return
                "permissions \(String(mode, radix: 8)) for host key '\(path)' are too open: other users could impersonate this server; run chmod 600 '\(path)'"
        case .unreadable(let path, let reason):
            return "cannot read host key '\(path)': \(reason)"
        case .notOpenSSHKey(let path):
            return "host key '\(path)' is not an OpenSSH private key (expected -----BEGIN OPENSSH PRIVATE KEY-----)"
        case .encrypted(let path):
            return "host key '\(path)' has a passphrase; a server cannot type it. Remove it with: ssh-keygen -p -N '' -f '\(path)'"
        case .unsupportedType(let path, let type):
            return "host key '\(path)' is \(type); storefront serves with Ed25519 keys (ssh-keygen -t ed25519)"
        case .damaged(let path, let reason):
            return "host key '\(path)' is damaged: \(reason)"
        case .cannotWrite(let path, let reason):
            return "cannot write host key '\(path)': \(reason)"
        }
    }
}

/// The server's Ed25519 host key, kept in OpenSSH's private-key format so `ssh-keygen` can read it.
public struct HostKey: Sendable {
    public let privateKey: Curve25519.Signing.PrivateKey

    public init(privateKey: Curve25519.Signing.PrivateKey) {
        self.privateKey = privateKey
    }

    /// The key as swift-nio-ssh uses it.
    public var sshKey: NIOSSHPrivateKey { NIOSSHPrivateKey(ed25519Key: privateKey) }

    /// The public key as one line of `authorized_keys`/`known_hosts`.
    public var openSSHPublicKey: String { String(openSSHPublicKey: sshKey.publicKey) }

    /// The fingerprint OpenSSH prints for this key (`SHA256:…`).
    public var fingerprint: String { SSHPublicKeyIdentity.fingerprint(of: sshKey.publicKey) }

    /// Reads the key at `path`, or creates one there (mode 0600) with its `.pub` beside it.
    /// Returns the key and whether it was created now.
    public static func loadOrCreate(at path: FilePath) throws -> (key: HostKey, created: Bool) {
        if FileManager.default.fileExists(atPath: path.string) {
            return (try load(from: path), false)
        }
        let key = HostKey(privateKey: Curve25519.Signing.PrivateKey())
        try key.write(to: path)
        return (key, true)
    }

    /// Reads an unencrypted OpenSSH Ed25519 private key, refusing one that others can read.
    public static func load(from path: FilePath) throws -> HostKey {
        let data: Data
        do {
            data = try ProtectedFile.read(path)
        } catch {
            switch error {
            case .tooOpen(let mode): throw HostKeyError.tooOpen(path: path, mode: Int(mode))
            case .missing: throw HostKeyError.unreadable(path: path, reason: "no such file")
            case .notRegularFile: throw HostKeyError.unreadable(path: path, reason: "not a regular file")
            case .wrongOwner(let owner):
                throw HostKeyError.unreadable(path: path, reason: "it belongs to uid \(owner), not to this server's user (uid \(geteuid()))")
            case .io(let reason): throw HostKeyError.unreadable(path: path, reason: reason)
            }
        }
        return try HostKey(openSSHPrivateKey: String(decoding: data, as: UTF8.self), path: path)
    }

    /// Writes the key (0600) and `path.pub` (0644), each replaced atomically.
    public func write(to path: FilePath) throws {
        do {
            try ProtectedFile.replace(path, with: Data(openSSHPrivateKey.utf8), mode: 0o600)
            try ProtectedFile.replace(FilePath(path.string + ".pub"), with: Data((openSSHPublicKey + " storefront-host-key\n").utf8), mode: 0o644)
        } catch {
            guard case .io(let reason) = error else { throw HostKeyError.cannotWrite(path: path, reason: "\(error)") }
            throw HostKeyError.cannotWrite(path: path, reason: reason)
        }
    }

    // MARK: - OpenSSH private-key format (PROTOCOL.key)

    private static let begin = "-----BEGIN OPENSSH PRIVATE KEY-----"
    private static let end = "-----END OPENSSH PRIVATE KEY-----"
    private static let magic = Array("openssh-key-v1\0".utf8)

    /// The key in OpenSSH's unencrypted private-key format.
    public var openSSHPrivateKey: String {
        let publicBytes = Array(privateKey.publicKey.rawRepresentation)
        var publicBlob = SSHWireWriter()
        publicBlob.string("ssh-ed25519")
        publicBlob.string(publicBytes)

        var secret = SSHWireWriter()
        let check = UInt32.random(in: .min ... .max)
        secret.uint32(check)
        secret.uint32(check)
        secret.string("ssh-ed25519")
        secret.string(publicBytes)
        secret.string(Array(privateKey.rawRepresentation) + publicBytes)
        secret.string("storefront-host-key")
        var pad: UInt8 = 1
        while secret.bytes.count % 8 != 0 {
            secret.bytes.append(pad)
            pad += 1
        }

        var file = SSHWireWriter()
        file.bytes = Self.magic
        file.string("none")
        file.string("none")
        file.string([UInt8]())
        file.uint32(1)
        file.string(publicBlob.bytes)
        file.string(secret.bytes)
        let body = Data(file.bytes).base64EncodedString()
        let lines = stride(from: 0, to: body.count, by: 70).map { offset -> Substring in
            let start = body.index(body.startIndex, offsetBy: offset)
            return body[start..<(body.index(start, offsetBy: 70, limitedBy: body.endIndex) ?? body.endIndex)]
        }
        return ([Self.begin] + lines.map(String.init) + [Self.end]).joined(separator: "\n") + "\n"
    }

    /// Parses OpenSSH's private-key format; `path` only names the file in errors.
    public init(openSSHPrivateKey text: String, path: FilePath) throws {
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        guard trimmed.hasPrefix(Self.begin), trimmed.hasSuffix(Self.end) else { throw HostKeyError.notOpenSSHKey(path: path) }
        let body = trimmed.dropFirst(Self.begin.count).dropLast(Self.end.count).filter { !$0.isWhitespace }
        guard let data = Data(base64Encoded: String(body)) else { throw HostKeyError.damaged(path: path, reason: "not base64") }
        var reader = SSHWireReader(bytes: Array(data))
        func damaged(_ reason: String) -> HostKeyError { .damaged(path: path, reason: reason) }
        guard reader.take(Self.magic.count) == Self.magic else { throw damaged("no openssh-key-v1 header") }
        guard let cipher = reader.text(), let kdf = reader.text(), reader.blob() != nil, let count = reader.uint32() else {
            throw damaged("truncated header")
        }
        guard cipher == "none", kdf == "none" else { throw HostKeyError.encrypted(path: path) }
        guard count == 1 else { throw damaged("holds \(count) keys, expected 1") }
        guard let publicBlob = reader.blob(), let secretBytes = reader.blob() else { throw damaged("truncated key") }
        var publicReader = SSHWireReader(bytes: publicBlob)
        guard let type = publicReader.text() else { throw damaged("no key type") }
        guard type == "ssh-ed25519" else { throw HostKeyError.unsupportedType(path: path, type: type) }

        var secret = SSHWireReader(bytes: secretBytes)
        guard let first = secret.uint32(), let second = secret.uint32(), first == second else { throw damaged("check words differ") }
        guard secret.text() == "ssh-ed25519", let publicBytes = secret.blob(), let pair = secret.blob(), pair.count == 64, publicBytes.count == 32
        else {
            throw damaged("bad Ed25519 key material")
        }
        let key: Curve25519.Signing.PrivateKey
        do { key = try Curve25519.Signing.PrivateKey(rawRepresentation: pair.prefix(32)) } catch { throw damaged("bad Ed25519 seed") }
        guard Array(key.publicKey.rawRepresentation) == publicBytes else { throw damaged("public half does not match the private half") }
        self.init(privateKey: key)
    }
}

/// Appends SSH wire-format values (RFC 4251 §5).
struct SSHWireWriter {
    var bytes: [UInt8] = []

    mutating func uint32(_ value: UInt32) {
        bytes += [UInt8(value >> 24), UInt8(value >> 16 & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF)]
    }

    mutating func string(_ value: [UInt8]) {
        uint32(UInt32(value.count))
        bytes += value
    }

    mutating func string(_ value: String) { string(Array(value.utf8)) }
}

/// Reads SSH wire-format values; every read returns nil past the end instead of trapping.
struct SSHWireReader {
    let bytes: [UInt8]
    var offset = 0

    init(bytes: [UInt8]) { self.bytes = bytes }

    mutating func take(_ count: Int) -> [UInt8]? {
        guard count >= 0, bytes.count - offset >= count else { return nil }
        defer { offset += count }
        return Array(bytes[offset..<offset + count])
    }

    mutating func uint32() -> UInt32? {
        guard let four = take(4) else { return nil }
        return four.reduce(0) { $0 << 8 | UInt32($1) }
    }

    mutating func blob() -> [UInt8]? {
        guard let length = uint32() else { return nil }
        return take(Int(length))
    }

    mutating func text() -> String? { blob().map { String(decoding: $0, as: UTF8.self) } }
}
