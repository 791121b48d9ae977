import Foundation
import ShopPorts

/// The secret of an API token: `sfp_`, 37 random base62 characters (220 bits), and a 6-character base62 CRC-32 of
/// them, so secret scanners can find it by its prefix and check it without asking the shop, and a mistyped one is
/// refused before any database read.
public struct PersonalAccessToken: Hashable, Sendable, CustomStringConvertible {
    public static let prefix = "sfp_"
    static let randomLength = 37
    static let checksumLength = 6
    /// The whole secret's length.
    public static let length = prefix.count + randomLength + checksumLength
    private static let alphabet = Array("0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz")

    /// The secret, to show its owner once; never logged or stored.
    public let secret: String

    /// A new random secret.
    public static func mint() -> PersonalAccessToken {
        var generator = SystemRandomNumberGenerator()
        let body = String((0..<randomLength).map { _ in alphabet[Int.random(in: 0..<alphabet.count, using: &generator)] })
        return PersonalAccessToken(validated: prefix + body + checksum(of: body))
    }

    /// `text` when it has the shape of a secret this shop mints, with a checksum that matches; else nil.
    public init?(_ text: String) {
        guard text.count == Self.length, text.hasPrefix(Self.prefix) else { return nil }
        let rest = text.dropFirst(Self.prefix.count)
        guard rest.allSatisfy({ Self.alphabet.contains($0) }) else { return nil }
        let body = String(rest.prefix(Self.randomLength))
        guard String(rest.suffix(Self.checksumLength)) == Self.checksum(of: body) else { return nil }
        secret = text
    }

    private init(validated: String) { secret = validated }

    /// The SHA-256 of the secret in lowercase hex: what the shop stores and looks tokens up by.
    public var hash: String {
        Encodings.sha256Hex(secret)
    }

    public var lastFour: String { String(secret.suffix(4)) }

    /// Never the secret: a token that reaches a log or an error message shows as its hint.
    public var description: String { "\(Self.prefix)…\(lastFour)" }

    /// A new token's record, with a new public id.
    public func record(name: String, owner: String, scope: APITokenScope, at time: Date) -> APITokenRecord {
        APITokenRecord(id: Encodings.randomID("tok_"), name: name, owner: owner, scope: scope, secretHash: hash, lastFour: lastFour, createdAt: time)
    }

    static func checksum(of body: String) -> String {
        var value = UInt64(crc32(Array(body.utf8)))
        var digits: [Character] = []
        for _ in 0..<checksumLength {
            digits.append(alphabet[Int(value % 62)])
            value /= 62
        }
        return String(digits.reversed())
    }

    /// CRC-32 (IEEE 802.3, the one zlib and GitHub's tokens use).
    static func crc32(_ bytes: [UInt8]) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in bytes {
            crc ^= UInt32(byte)
            for _ in 0..<8 { crc = (crc >> 1) ^ (0xEDB8_8320 & (0 &- (crc & 1))) }
        }
        return ~crc
    }
}

extension APITokenAccess {
    /// Shop-scoped tokens kept in `repository`, minted as `PersonalAccessToken`s: what the account screen makes; in a
    /// browser tab, each ends with the tab's `session` unless its owner makes it lasting.
    public static func shopTokens(in repository: any APITokenRepository, session: String? = nil) -> APITokenAccess {
        APITokenAccess(repository: repository, session: session) { name, owner, time in
            let token = PersonalAccessToken.mint()
            return (token.secret, token.record(name: name, owner: owner, scope: .shop, at: time))
        }
    }
}
