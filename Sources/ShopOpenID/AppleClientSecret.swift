import Foundation
import JWTKit

/// Sign in with Apple's client secret: an ES256 JWT from the team's key (`AuthKey_KEYID.p8`), as Apple documents it:
/// `iss` the team id, `sub` the Services ID, `aud` Apple, `kid` the key's id, at most six months long (made fresh here,
/// for five minutes, at each exchange).
public enum AppleClientSecret {
    struct Claims: JWTPayload {
        var iss: String
        var iat: Int
        var exp: Int
        var aud: String
        var sub: String
        func verify(using algorithm: some JWTAlgorithm) async throws {}
    }

    public static func make(teamID: String, keyID: String, clientID: String, pem: String, at date: Date) async throws -> String {
        let key = try ES256PrivateKey(pem: pem)
        let keys = JWTKeyCollection()
        await keys.add(ecdsa: key, kid: JWKIdentifier(string: keyID))
        let now = Int(date.timeIntervalSince1970)
        return try await keys.sign(
            Claims(iss: teamID, iat: now, exp: now + 300, aud: "https://appleid.apple.com", sub: clientID), kid: JWKIdentifier(string: keyID))
    }
}
