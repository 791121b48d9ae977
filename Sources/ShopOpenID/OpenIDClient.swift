import Crypto
import Foundation
import JWTKit
import LiveObjects
import ShopIdentity
import ShopPorts

/// One provider's side of a sign-in: discovery, the authorization request, the code's exchange, and the ID token's
/// checks. The provider's keys are read again when a token names a key not seen yet (a rotation, at most once per
/// `keyRefetchInterval`) and once they are an hour old, so a key the provider withdrew stops being trusted; its
/// metadata is read again once a day.
///
/// Order of calls: `authorizationURL` (the browser goes there) → the provider calls back with `code` and `state` →
/// `exchange` (the ID token) → `verify` (who signed in).
public actor OpenIDClient {
    /// What signs an ID token: asymmetric algorithms only, so no token is "signed" with `none` or with an HMAC keyed by a
    /// public key.
    public static let allowedAlgorithms: Set<String> = ["RS256", "RS384", "RS512", "PS256", "PS384", "PS512", "ES256", "ES384", "EdDSA"]
    /// How far the provider's clock may be from the shop's.
    static let skew: TimeInterval = 60

    public nonisolated let settings: OpenIDProviderSettings
    let transport: any OpenIDTransport
    let dates: DateSource
    private let keyRefetchInterval: TimeInterval
    /// How long the provider's keys are trusted as read before they are read again.
    static let keyMaxAge: TimeInterval = 3_600
    /// How long the provider's metadata is used as read before it is read again.
    static let metadataMaxAge: TimeInterval = 86_400
    private var discovered: (metadata: ProviderMetadata, at: Date)?
    private var keys: (collection: JWTKeyCollection, byID: [String: (type: String, algorithm: String?)])?
    private var keysReadAt: Date?

    public init(settings: OpenIDProviderSettings, transport: any OpenIDTransport, dates: DateSource = .system, keyRefetchInterval: TimeInterval = 10)
    {
        self.settings = settings
        self.transport = transport
        self.dates = dates
        self.keyRefetchInterval = keyRefetchInterval
    }

    /// The provider's metadata, read again once a day; its `issuer` must be the one configured, character for character.
    public func metadata() async throws(OpenIDError) -> ProviderMetadata {
        let now = dates.now()
        if let discovered, now.timeIntervalSince(discovered.at) < Self.metadataMaxAge { return discovered.metadata }
        let url =
            settings.issuer.hasSuffix("/")
            ? settings.issuer + ".well-known/openid-configuration" : settings.issuer + "/.well-known/openid-configuration"
        let answer: (status: Int, body: Data)
        do { answer = try await transport.get(url) } catch { throw .discovery("\(url): \(error)") }
        guard answer.status == 200 else { throw .discovery("\(url) answered \(answer.status)") }
        let metadata: ProviderMetadata
        do { metadata = try JSONDecoder().decode(ProviderMetadata.self, from: answer.body) } catch { throw .discovery("\(url): \(error)") }
        guard metadata.issuer == settings.issuer else {
            throw .discovery("it names its issuer \(metadata.issuer), not \(settings.issuer)")
        }
        discovered = (metadata, now)
        return metadata
    }

    /// Where to send the browser: the code flow with PKCE (S256), `state` and `nonce`; Apple's answer posted back
    /// (`response_mode=form_post`) since a name and email are asked for.
    public func authorizationURL(state: String, nonce: String, verifier: String, redirectURI: String) async throws(OpenIDError) -> String {
        let endpoint = try await metadata().authorizationEndpoint
        var fields = [
            ("response_type", "code"), ("client_id", settings.clientID), ("redirect_uri", redirectURI),
            ("scope", (["openid"] + settings.scopes).joined(separator: " ")), ("state", state), ("nonce", nonce),
            ("code_challenge", PKCE.challenge(for: verifier)), ("code_challenge_method", "S256"),
        ]
        if settings.isApple { fields.append(("response_mode", "form_post")) }
        return endpoint + (endpoint.contains("?") ? "&" : "?") + FormEncoding.encode(fields)
    }

    /// Trades the code for the ID token, proving the request with the PKCE verifier.
    public func exchange(code: String, verifier: String, redirectURI: String) async throws(OpenIDError) -> String {
        let endpoint = try await metadata().tokenEndpoint
        let fields = [
            ("grant_type", "authorization_code"), ("code", code), ("redirect_uri", redirectURI), ("client_id", settings.clientID),
            ("code_verifier", verifier),
        ]
        let proof = try await clientAuthentication()
        let answer: (status: Int, body: Data)
        do { answer = try await transport.postForm(endpoint, fields: fields + proof.fields, headers: proof.headers) } catch {
            throw .tokenEndpoint("\(error)")
        }
        let json = (try? JSONSerialization.jsonObject(with: answer.body)) as? [String: Any]
        guard answer.status == 200, let token = json?["id_token"] as? String else {
            throw .tokenEndpoint("\(answer.status) \(json?["error"] as? String ?? "without an ID token")")
        }
        return token
    }

    /// How the shop proves itself at the provider's endpoints: its secret in HTTP Basic (RFC 6749 §2.3.1's preferred
    /// way, and the default where the provider names none) or in the body where the provider takes only that, Apple's
    /// ES256 JWT in the body (Apple takes only that), or nothing (PKCE alone).
    func clientAuthentication() async throws(OpenIDError) -> (fields: [(String, String)], headers: [(String, String)]) {
        switch settings.authentication {
        case .secret(let secret):
            let methods = try await metadata().tokenEndpointAuthMethods ?? ["client_secret_basic"]
            if !methods.contains("client_secret_basic"), methods.contains("client_secret_post") { return ([("client_secret", secret)], []) }
            let pair = FormEncoding.escape(settings.clientID) + ":" + FormEncoding.escape(secret)
            return ([], [("Authorization", "Basic " + Data(pair.utf8).base64EncodedString())])
        case .apple(let team, let key, let pem):
            do {
                let secret = try await AppleClientSecret.make(teamID: team, keyID: key, clientID: settings.clientID, pem: pem, at: dates.now())
                return ([("client_secret", secret)], [])
            } catch {
                throw .tokenEndpoint("the Apple client secret could not be made: \(error)")
            }
        case .none: return ([], [])
        }
    }

    /// Checks an ID token: its algorithm and key, its signature, `iss`, `aud` (and `azp`), `exp`, `iat` and `nonce`
    /// (nil only for the device flow, whose request carries none).
    public func verify(idToken: String, nonce: String?) async throws(OpenIDError) -> OpenIDIdentity {
        let metadata = try await metadata()
        let parts = idToken.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, idToken.utf8.count <= 16_384,
            let headerData = Encodings.decodeBase64URL(parts[0]), let header = try? JSONDecoder().decode(TokenHeader.self, from: headerData)
        else { throw .idToken("it is not a signed JWT") }
        guard Self.allowedAlgorithms.contains(header.alg) else { throw .idToken("its algorithm \(header.alg) is not one a provider signs with") }
        if let named = metadata.signingAlgorithms, !named.contains(header.alg) {
            throw .idToken("its algorithm \(header.alg) is not one the provider names")
        }
        let (collection, key) = try await key(header.kid, metadata: metadata)
        guard Self.fits(header.alg, keyType: key.type), key.algorithm == nil || key.algorithm == header.alg else {
            throw .idToken("its algorithm \(header.alg) does not fit the provider's key \(header.kid ?? "")")
        }
        let claims: IDTokenClaims
        do { claims = try await collection.verify(Array(idToken.utf8), as: IDTokenClaims.self) } catch {
            throw .idToken("its signature does not verify")
        }
        let now = dates.now().timeIntervalSince1970
        guard claims.iss == metadata.issuer else { throw .idToken("it was issued by \(claims.iss), not \(metadata.issuer)") }
        guard claims.aud.values.contains(settings.clientID) else { throw .idToken("it is for another client") }
        // OpenID Connect Core §3.1.3.7: an audience the shop does not trust (any but itself) refuses the token, whatever
        // `azp` says; an `azp` there must be the shop.
        guard claims.aud.values.allSatisfy({ $0 == settings.clientID }) else { throw .idToken("it is also for another client") }
        if let azp = claims.azp, azp != settings.clientID { throw .idToken("it was given to another client") }
        guard claims.exp + Self.skew > now else { throw .idToken("it expired") }
        guard claims.iat - Self.skew <= now, claims.iat > now - 24 * 3_600 else { throw .idToken("its issue time is not now") }
        if let nonce {
            guard let given = claims.nonce, Encodings.constantTimeEqual(given, nonce) else { throw .idToken("its nonce is not this sign-in's") }
        }
        return OpenIDIdentity(
            issuer: claims.iss, subject: claims.sub, email: claims.email,
            // Only `iss` and `sub` say who this is (OpenID Connect Core §5.7): an email the provider calls verified is
            // taken as proof only in the domains the operator trusts it for, or it could take an account that has that email.
            emailVerified: (claims.emailVerified?.value ?? false) && settings.vouches(for: claims.email), name: claims.name)
    }

    /// The provider's key `kid`, read again when it is not known yet (the provider rotated its keys). A token that names
    /// no key may use the provider's only one.
    private func key(_ kid: String?, metadata: ProviderMetadata) async throws(OpenIDError)
        -> (JWTKeyCollection, (type: String, algorithm: String?))
    {
        let now = dates.now()
        let age = keysReadAt.map { now.timeIntervalSince($0) } ?? .infinity
        if age < Self.keyMaxAge, let keys, let key = Self.pick(kid, keys.byID) { return (keys.collection, key) }
        if age < keyRefetchInterval { throw .idToken("it names a key the provider does not have: \(kid ?? "none")") }
        let answer: (status: Int, body: Data)
        do { answer = try await transport.get(metadata.jwksURI) } catch { throw .keys("\(error)") }
        guard answer.status == 200, let set = (try? JSONSerialization.jsonObject(with: answer.body)) as? [String: Any],
            let entries = set["keys"] as? [Any]
        else { throw .keys("\(metadata.jwksURI) answered \(answer.status) without a key set") }
        let collection = JWTKeyCollection()
        var byID: [String: (type: String, algorithm: String?)] = [:]
        for entry in entries {
            // RFC 7517 §5: a key the shop cannot use (an unknown type, a bad field, one for encryption) is passed over,
            // and the others still sign in.
            guard let fields = entry as? [String: Any], (fields["use"] as? String ?? "sig") == "sig",
                let data = try? JSONSerialization.data(withJSONObject: fields), let info = try? JSONDecoder().decode(KeySet.Key.self, from: data),
                let jwk = try? JSONDecoder().decode(JWK.self, from: data), (try? await collection.add(jwk: jwk)) != nil
            else { continue }
            if let kid = info.kid, byID[kid] == nil { byID[kid] = (info.kty, info.alg) }
        }
        keys = (collection, byID)
        keysReadAt = now
        guard let key = Self.pick(kid, byID) else { throw .idToken("it names a key the provider does not have: \(kid ?? "none")") }
        return (collection, key)
    }

    /// The key `kid` names, or the only key when it names none.
    private static func pick(_ kid: String?, _ byID: [String: (type: String, algorithm: String?)]) -> (type: String, algorithm: String?)? {
        guard let kid else { return byID.count == 1 ? byID.first?.value : nil }
        return byID[kid]
    }

    /// Whether a key of `keyType` signs with `algorithm`.
    static func fits(_ algorithm: String, keyType: String) -> Bool {
        switch keyType {
        case "RSA": algorithm.hasPrefix("RS") || algorithm.hasPrefix("PS")
        case "EC": algorithm.hasPrefix("ES")
        case "OKP": algorithm == "EdDSA"
        default: false
        }
    }
}

struct TokenHeader: Decodable {
    var alg: String
    var kid: String?
}

/// What the shop reads of one key of a provider's key set, beside JWTKit's own reading of it.
enum KeySet {
    struct Key: Decodable {
        var kty: String
        var kid: String?
        var alg: String?
    }
}

/// An ID token's claims; the shop checks each itself after the signature.
struct IDTokenClaims: JWTPayload {
    /// `aud` is a string or a list of them.
    struct Audience: Codable, Sendable {
        var values: [String]
        init(from decoder: any Decoder) throws {
            let container = try decoder.singleValueContainer()
            if let list = try? container.decode([String].self) {
                values = list
            } else {
                values = [try container.decode(String.self)]
            }
        }
        func encode(to encoder: any Encoder) throws {
            var container = encoder.singleValueContainer()
            try container.encode(values)
        }
    }
    /// Apple sends `email_verified` as the string "true".
    struct Flag: Codable, Sendable {
        var value: Bool
        init(from decoder: any Decoder) throws {
            let container = try decoder.singleValueContainer()
            value = (try? container.decode(Bool.self)) ?? ((try? container.decode(String.self)) == "true")
        }
        func encode(to encoder: any Encoder) throws {
            var container = encoder.singleValueContainer()
            try container.encode(value)
        }
    }

    var iss: String
    var sub: String
    var aud: Audience
    var azp: String?
    var exp: Double
    var iat: Double
    var nonce: String?
    var email: String?
    var emailVerified: Flag?
    var name: String?

    enum CodingKeys: String, CodingKey {
        case iss, sub, aud, azp, exp, iat, nonce, email, name
        case emailVerified = "email_verified"
    }

    func verify(using algorithm: some JWTAlgorithm) async throws {}
}

/// Proof Key for Code Exchange (RFC 7636) with S256, and the values a sign-in's `state` derives.
public enum PKCE {
    public static func challenge(for verifier: String) -> String {
        Encodings.base64URL(Data(SHA256.hash(data: Data(verifier.utf8))))
    }

    /// A new `state`: 32 random bytes in base64url.
    public static func newState() -> String { Encodings.randomToken() }

    /// A secret the shop derives from `state` under its key (`verifier`, `nonce`): it keeps neither, only the state's hash.
    public static func derived(_ label: String, state: String, key: SymmetricKey) -> String {
        Encodings.base64URL(Data(HMAC<SHA256>.authenticationCode(for: Data("\(label)\n\(state)".utf8), using: key)))
    }
}

extension OpenIDClient: LiveObject {}
