import Foundation

/// One OpenID Connect provider the shop signs customers in with, as the operator names it.
public struct OpenIDProviderSettings: Codable, Equatable, Sendable {
    /// How the shop proves itself at the token endpoint.
    public enum ClientAuthentication: Codable, Equatable, Sendable {
        /// A client secret (`client_secret_post`).
        case secret(String)
        /// Sign in with Apple: an ES256 JWT made from the team's key, as Apple documents it.
        case apple(teamID: String, keyID: String, privateKeyPEM: String)
        /// A public client: PKCE alone.
        case none
    }

    /// The name in the shop's link ("Google"), and its id in the callback's path (`google`).
    public var name: String
    public var id: String
    /// The issuer URL; its `/.well-known/openid-configuration` is read.
    public var issuer: String
    public var clientID: String
    public var authentication: ClientAuthentication
    /// Scopes asked for beside `openid`.
    public var scopes: [String]
    /// The email domains whose addresses this provider's `email_verified` proves ("gmail.com" for Google, a company's
    /// own for its Keycloak); an email elsewhere joins no account and is not taken as verified. Empty: none.
    public var emailDomains: [String]

    public init(
        name: String, id: String, issuer: String, clientID: String, authentication: ClientAuthentication, scopes: [String] = ["email", "profile"],
        emailDomains: [String] = []
    ) {
        self.name = name
        self.id = id
        self.issuer = issuer
        self.clientID = clientID
        self.authentication = authentication
        self.scopes = scopes
        self.emailDomains = emailDomains.map { $0.lowercased() }
    }

    /// Whether this provider's word that `email` is verified is taken: its domain is one the operator named.
    public func vouches(for email: String?) -> Bool {
        guard let email, let at = email.lastIndex(of: "@") else { return false }
        return emailDomains.contains(email[email.index(after: at)...].lowercased())
    }

    /// Apple's issuer: its client secret is a JWT and it posts the answer when a name or email is asked for.
    public var isApple: Bool { issuer == "https://appleid.apple.com" }
}

/// What discovery gives: the endpoints and what the provider signs with.
public struct ProviderMetadata: Decodable, Equatable, Sendable {
    public var issuer: String
    public var authorizationEndpoint: String
    public var tokenEndpoint: String
    public var jwksURI: String
    public var deviceAuthorizationEndpoint: String?
    public var signingAlgorithms: [String]?
    /// How the token endpoint takes a client's proof; absent means `client_secret_basic` (OpenID Connect Discovery §3).
    public var tokenEndpointAuthMethods: [String]?

    enum CodingKeys: String, CodingKey {
        case issuer
        case authorizationEndpoint = "authorization_endpoint"
        case tokenEndpoint = "token_endpoint"
        case jwksURI = "jwks_uri"
        case deviceAuthorizationEndpoint = "device_authorization_endpoint"
        case signingAlgorithms = "id_token_signing_alg_values_supported"
        case tokenEndpointAuthMethods = "token_endpoint_auth_methods_supported"
    }
}

/// Who the provider says signed in, from a checked ID token.
public struct OpenIDIdentity: Equatable, Sendable {
    public var issuer: String
    public var subject: String
    public var email: String?
    /// Whether the provider vouches for the email (Apple sends "true" as a string).
    public var emailVerified: Bool
    public var name: String?

    public init(issuer: String, subject: String, email: String?, emailVerified: Bool, name: String?) {
        self.issuer = issuer
        self.subject = subject
        self.email = email
        self.emailVerified = emailVerified
        self.name = name
    }
}

/// Why a sign-in with a provider failed; nothing was changed.
public enum OpenIDError: Error, Equatable, Sendable, CustomStringConvertible {
    case discovery(String)
    case keys(String)
    case tokenEndpoint(String)
    case idToken(String)

    public var description: String {
        switch self {
        case .discovery(let why): "the provider's discovery failed: \(why)"
        case .keys(let why): "the provider's keys could not be read: \(why)"
        case .tokenEndpoint(let why): "the provider refused the code: \(why)"
        case .idToken(let why): "the ID token was refused: \(why)"
        }
    }
}
