import Crypto
import Foundation
import LiveObjects
import ShopIdentity
import ShopOpenID
import ShopPorts
import Synchronization
import Testing

/// The shop's OpenID Connect client: the code flow with PKCE against oidc-provider-mock (a real provider, PKCE
/// required), and ID tokens the test signs itself to show every check refuses what it must.
@Suite("OpenID Connect: the code flow and the ID token's checks", .ownThreads)
struct OpenIDClientTests {
    static let redirect = "http://127.0.0.1:1/sign-in/oidc/callback"

    @Test func theCodeFlowWithPKCESignsInAndARepeatedCodeOrAWrongVerifierIsRefused() async throws {
        let provider = try OpenIDTestProvider(users: [["sub": "ada-1", "email": "ada@example.com", "email_verified": true, "name": "Ada"]])
        let client = OpenIDClient(
            settings: OpenIDProviderSettings(
                name: "Mock", id: "mock", issuer: provider.issuer, clientID: "storefront", authentication: .secret("s3cret"),
                emailDomains: ["example.com"]),
            transport: HTTPOpenIDTransport())
        let (state, nonce, verifier) = (PKCE.newState(), PKCE.newState(), PKCE.newState() + PKCE.newState())
        let url = try await client.authorizationURL(state: state, nonce: nonce, verifier: verifier, redirectURI: Self.redirect)
        #expect(url.contains("code_challenge=\(PKCE.challenge(for: verifier))") && url.contains("code_challenge_method=S256"))
        let back = try provider.authorize(url, as: "ada-1")
        #expect(back.hasPrefix(Self.redirect) && OpenIDTestProvider.parameter("state", of: back) == state, "\(back)")
        let code = try #require(OpenIDTestProvider.parameter("code", of: back))

        let token = try await client.exchange(code: code, verifier: verifier, redirectURI: Self.redirect)
        let identity = try await client.verify(idToken: token, nonce: nonce)
        #expect(identity == OpenIDIdentity(issuer: provider.issuer, subject: "ada-1", email: "ada@example.com", emailVerified: true, name: "Ada"))
        // The same token with another sign-in's nonce is refused: a replayed token is not this sign-in's.
        await #expect(throws: OpenIDError.idToken("its nonce is not this sign-in's")) {
            try await client.verify(idToken: token, nonce: PKCE.newState())
        }
        // A code works once.
        await #expect(throws: OpenIDError.self) { try await client.exchange(code: code, verifier: verifier, redirectURI: Self.redirect) }

        // A code asked for with one verifier is refused with another.
        let second = try provider.authorize(
            try await client.authorizationURL(state: state, nonce: nonce, verifier: verifier, redirectURI: Self.redirect), as: "ada-1")
        let stolen = try #require(OpenIDTestProvider.parameter("code", of: second))
        await #expect(throws: OpenIDError.self) {
            try await client.exchange(code: stolen, verifier: PKCE.newState() + PKCE.newState(), redirectURI: Self.redirect)
        }
    }

    /// A provider of the test's own: discovery and a key set it can change, with a count of key set reads.
    final class Provider: OpenIDTransport, LiveObject {
        static let issuer = "https://id.example"
        let keySet = Mutex<[[String: String]]>([])
        let keyReads = Mutex(0)
        /// The token endpoint's `token_endpoint_auth_methods_supported`, when it names them.
        let authMethods = Mutex<[String]?>(nil)
        /// Each POST to the token endpoint: its fields and headers.
        let posts = Mutex<[(fields: [String: String], headers: [String: String])]>([])

        func get(_ url: String) async throws -> (status: Int, body: Data) {
            if url.hasSuffix("/.well-known/openid-configuration") {
                var metadata: [String: Any] = [
                    "issuer": Self.issuer, "authorization_endpoint": Self.issuer + "/authorize", "token_endpoint": Self.issuer + "/token",
                    "jwks_uri": Self.issuer + "/jwks",
                ]
                metadata["token_endpoint_auth_methods_supported"] = authMethods.withLock { $0 }
                return (200, try JSONSerialization.data(withJSONObject: metadata))
            }
            keyReads.withLock { $0 += 1 }
            return (200, try JSONSerialization.data(withJSONObject: ["keys": keySet.withLock { $0 }]))
        }

        func postForm(_ url: String, fields: [(String, String)], headers: [(String, String)]) async throws -> (status: Int, body: Data) {
            posts.withLock {
                $0.append((Dictionary(fields) { $1 }, Dictionary(headers) { $1 }))
            }
            return (200, Data(#"{"id_token":"t"}"#.utf8))
        }

        static func jwk(_ key: P256.Signing.PrivateKey, id: String) -> [String: String] {
            let point = key.publicKey.x963Representation.dropFirst()
            return [
                "kty": "EC", "crv": "P-256", "kid": id, "alg": "ES256", "use": "sig", "x": Encodings.base64URL(point.prefix(32)),
                "y": Encodings.base64URL(point.suffix(32)),
            ]
        }
    }

    let now = Date(timeIntervalSince1970: 1_795_339_800)
    let keyOne = P256.Signing.PrivateKey()

    func client(_ provider: Provider, refetch: TimeInterval = 0, emailDomains: [String] = ["example.com"]) -> OpenIDClient {
        let now = now
        return OpenIDClient(
            settings: OpenIDProviderSettings(
                name: "Example", id: "example", issuer: Provider.issuer, clientID: "shop", authentication: .none, emailDomains: emailDomains),
            transport: provider, dates: DateSource { now }, keyRefetchInterval: refetch)
    }

    func claims(_ changes: [String: Any] = [:]) -> [String: Any] {
        let base: [String: Any] = [
            "iss": Provider.issuer, "sub": "u1", "aud": "shop", "exp": now.timeIntervalSince1970 + 600, "iat": now.timeIntervalSince1970,
            "nonce": "n-1",
            "email": "ada@example.com", "email_verified": "true",
        ]
        return base.merging(changes) { $1 }
    }

    func token(_ claims: [String: Any], header: [String: String] = ["alg": "ES256", "kid": "k1"], key: P256.Signing.PrivateKey? = nil) throws
        -> String
    {
        let input =
            Encodings.base64URL(try JSONSerialization.data(withJSONObject: header)) + "."
            + Encodings.base64URL(try JSONSerialization.data(withJSONObject: claims))
        let signature = try (key ?? keyOne).signature(for: Data(input.utf8)).rawRepresentation
        return input + "." + Encodings.base64URL(signature)
    }

    @Test func everyCheckRefusesWhatItMust() async throws {
        let provider = Provider()
        provider.keySet.withLock { $0 = [Provider.jwk(keyOne, id: "k1")] }
        let client = client(provider)
        let identity = try await client.verify(idToken: try token(claims()), nonce: "n-1")
        #expect(identity.subject == "u1" && identity.emailVerified, "Apple's \"true\" is a verified email")
        // Only `iss` and `sub` say who it is: an email the provider calls verified proves nothing outside the domains the
        // operator trusts it for, so it reaches no account that holds that email.
        for domains in [[], ["example.org"], ["mple.com"]] {
            let untrusted = try await self.client(provider, emailDomains: domains).verify(idToken: try token(claims()), nonce: "n-1")
            #expect(!untrusted.emailVerified && untrusted.email == "ada@example.com", "\(domains)")
        }

        let refusals: [(String, String)] = [
            (try token(claims(["aud": "another-client"])), "it is for another client"),
            // OIDC Core §3.1.3.7: an audience the shop does not trust refuses the token, even with `azp` the shop.
            (try token(claims(["aud": ["shop", "other"]])), "it is also for another client"),
            (try token(claims(["aud": ["shop", "other"], "azp": "shop"])), "it is also for another client"),
            (try token(claims(["azp": "other"])), "it was given to another client"),
            (try token(claims(["iss": "https://evil.example"])), "it was issued by https://evil.example, not https://id.example"),
            (try token(claims(["exp": now.timeIntervalSince1970 - 3_600])), "it expired"),
            (try token(claims(["iat": now.timeIntervalSince1970 + 3_600])), "its issue time is not now"),
            (try token(claims(["nonce": "n-2"])), "its nonce is not this sign-in's"),
            // A token without a nonce, for a sign-in that sent one: the claim must be there, and equal (OIDC Core 3.1.3.7).
            (try token(claims().filter { $0.key != "nonce" }), "its nonce is not this sign-in's"),
            (try token(claims(), key: P256.Signing.PrivateKey()), "its signature does not verify"),
            (try token(claims(), header: ["alg": "ES384", "kid": "k1"]), "its algorithm ES384 does not fit the provider's key k1"),
        ]
        for (token, why) in refusals {
            await #expect(throws: OpenIDError.idToken(why)) { try await client.verify(idToken: token, nonce: "n-1") }
        }
        // The device flow sends no nonce, and its token carries none: taken.
        #expect(try await client.verify(idToken: try token(claims().filter { $0.key != "nonce" }), nonce: nil).subject == "u1")
        // `alg: none`, and HS256 "signed" with the provider's public key as the HMAC key.
        let body = Encodings.base64URL(try JSONSerialization.data(withJSONObject: claims()))
        let none = Encodings.base64URL(Data(#"{"alg":"none","kid":"k1"}"#.utf8)) + "." + body + "."
        let hsInput = Encodings.base64URL(Data(#"{"alg":"HS256","kid":"k1"}"#.utf8)) + "." + body
        let publicKey = SymmetricKey(data: keyOne.publicKey.x963Representation)
        let hs = hsInput + "." + Encodings.base64URL(Data(HMAC<SHA256>.authenticationCode(for: Data(hsInput.utf8), using: publicKey)))
        for (token, alg) in [(none, "none"), (hs, "HS256")] {
            await #expect(throws: OpenIDError.idToken("its algorithm \(alg) is not one a provider signs with")) {
                try await client.verify(idToken: token, nonce: "n-1")
            }
        }
    }

    @Test func aRotatedKeyIsReadWhenATokenFirstNamesIt() async throws {
        let provider = Provider()
        provider.keySet.withLock { $0 = [Provider.jwk(keyOne, id: "k1")] }
        let client = client(provider, refetch: 0)
        _ = try await client.verify(idToken: try token(claims()), nonce: "n-1")
        #expect(provider.keyReads.withLock { $0 } == 1)
        _ = try await client.verify(idToken: try token(claims()), nonce: "n-1")
        #expect(provider.keyReads.withLock { $0 } == 1, "a known key is not read again")

        // The provider rotates: a new key k2 signs, k1 is gone.
        let keyTwo = P256.Signing.PrivateKey()
        provider.keySet.withLock { $0 = [Provider.jwk(keyTwo, id: "k2")] }
        let rotated = try token(claims(), header: ["alg": "ES256", "kid": "k2"], key: keyTwo)
        #expect(try await client.verify(idToken: rotated, nonce: "n-1").subject == "u1")
        #expect(provider.keyReads.withLock { $0 } == 2)
        await #expect(throws: OpenIDError.self, "a token of the retired key is refused") {
            try await client.verify(idToken: try token(claims()), nonce: "n-1")
        }

        // Within the refetch interval an unknown key is refused without reading the set again.
        let patient = self.client(provider, refetch: 60)
        _ = try await patient.verify(idToken: rotated, nonce: "n-1")
        let reads = provider.keyReads.withLock { $0 }
        await #expect(throws: OpenIDError.idToken("it names a key the provider does not have: k9")) {
            try await patient.verify(idToken: try token(claims(), header: ["alg": "ES256", "kid": "k9"]), nonce: "n-1")
        }
        #expect(provider.keyReads.withLock { $0 } == reads)
    }

    /// RFC 7517 §5: a key the shop cannot use (an unknown type, a broken one, one for encryption) is passed over.
    @Test func anUnusableKeyInTheSetLeavesTheOthersSigningIn() async throws {
        let provider = Provider()
        provider.keySet.withLock {
            $0 = [
                ["kty": "oct-unknown", "kid": "odd"], ["kty": "RSA", "kid": "broken", "n": "!!", "e": "AQAB"],
                Provider.jwk(P256.Signing.PrivateKey(), id: "enc").merging(["use": "enc"]) { $1 }, Provider.jwk(keyOne, id: "k1"),
            ]
        }
        #expect(try await client(provider).verify(idToken: try token(claims()), nonce: "n-1").subject == "u1")
        await #expect(throws: OpenIDError.idToken("it names a key the provider does not have: enc"), "a key for encryption signs nothing") {
            try await client(provider).verify(idToken: try token(claims(), header: ["alg": "ES256", "kid": "enc"]), nonce: "n-1")
        }
    }

    /// A key the provider withdrew is trusted no longer than an hour after it was read, even while no token names a new one.
    @Test func aWithdrawnKeyIsTrustedAnHourAtMost() async throws {
        let provider = Provider()
        provider.keySet.withLock { $0 = [Provider.jwk(keyOne, id: "k1")] }
        let clock = Mutex(now)
        let client = OpenIDClient(
            settings: OpenIDProviderSettings(name: "Example", id: "example", issuer: Provider.issuer, clientID: "shop", authentication: .none),
            transport: provider, dates: DateSource { clock.withLock { $0 } }, keyRefetchInterval: 60)
        _ = try await client.verify(idToken: try token(claims()), nonce: "n-1")
        provider.keySet.withLock { $0 = [Provider.jwk(P256.Signing.PrivateKey(), id: "k2")] }
        clock.withLock { $0 = now.addingTimeInterval(3_599) }
        let signedThen = try token(claims(["iat": now.timeIntervalSince1970 + 3_599, "exp": now.timeIntervalSince1970 + 4_000]))
        #expect(try await client.verify(idToken: signedThen, nonce: "n-1").subject == "u1", "within the hour, as read")
        clock.withLock { $0 = now.addingTimeInterval(3_601) }
        await #expect(throws: OpenIDError.idToken("it names a key the provider does not have: k1")) {
            try await client.verify(idToken: signedThen, nonce: "n-1")
        }
        #expect(provider.keyReads.withLock { $0 } == 2)
    }

    /// The secret goes in HTTP Basic, RFC 6749's preferred way and the default where the provider names none; in the
    /// body only for a provider that takes only that.
    @Test func theClientSecretGoesInBasicUnlessTheProviderTakesItOnlyInTheBody() async throws {
        for methods in [nil, ["client_secret_basic", "client_secret_post"], ["client_secret_post"]] as [[String]?] {
            let provider = Provider()
            provider.authMethods.withLock { $0 = methods }
            let client = OpenIDClient(
                settings: OpenIDProviderSettings(
                    name: "Example", id: "example", issuer: Provider.issuer, clientID: "shop:1", authentication: .secret("s3cr&t")),
                transport: provider, dates: DateSource { now })
            #expect(try await client.exchange(code: "c", verifier: "v", redirectURI: Self.redirect) == "t")
            let post = try #require(provider.posts.withLock { $0.first })
            if methods == ["client_secret_post"] {
                #expect(post.fields["client_secret"] == "s3cr&t" && post.headers["Authorization"] == nil)
            } else {
                // Each part form-encoded, then joined by a colon (RFC 6749 §2.3.1).
                let basic = "Basic " + Data("shop%3A1:s3cr%26t".utf8).base64EncodedString()
                #expect(post.headers["Authorization"] == basic && post.fields["client_secret"] == nil, "\(String(describing: methods))")
            }
        }
    }

    /// Sign in with Apple: the client secret is an ES256 JWT of the team's key as Apple documents it, and the answer is
    /// asked to be posted back.
    @Test func appleGetsAnES256ClientSecretAndAFormPostRequest() async throws {
        let teamKey = P256.Signing.PrivateKey()
        let secret = try await AppleClientSecret.make(
            teamID: "ABCDE12345", keyID: "XYZ987ABCD", clientID: "com.example.shop.web", pem: teamKey.pemRepresentation, at: now)
        let parts = secret.split(separator: ".").map(String.init)
        try #require(parts.count == 3)
        let (headerData, claimsData, signatureData) = (
            Encodings.decodeBase64URL(parts[0]) ?? Data(), Encodings.decodeBase64URL(parts[1]) ?? Data(), Encodings.decodeBase64URL(parts[2])
        )
        let header = try #require(try JSONSerialization.jsonObject(with: headerData) as? [String: Any])
        let claims = try #require(try JSONSerialization.jsonObject(with: claimsData) as? [String: Any])
        #expect(header["alg"] as? String == "ES256" && header["kid"] as? String == "XYZ987ABCD")
        #expect(claims["iss"] as? String == "ABCDE12345" && claims["sub"] as? String == "com.example.shop.web")
        #expect(claims["aud"] as? String == "https://appleid.apple.com")
        let issued = try #require(claims["iat"] as? Int)
        #expect(issued == Int(now.timeIntervalSince1970) && claims["exp"] as? Int == issued + 300)
        let signature = try P256.Signing.ECDSASignature(rawRepresentation: try #require(signatureData))
        #expect(teamKey.publicKey.isValidSignature(signature, for: Data((parts[0] + "." + parts[1]).utf8)), "signed with the team's key")

        final class Apple: OpenIDTransport, LiveObject {
            func get(_ url: String) async throws -> (status: Int, body: Data) {
                let metadata = [
                    "issuer": "https://appleid.apple.com", "authorization_endpoint": "https://appleid.apple.com/auth/authorize",
                    "token_endpoint": "https://appleid.apple.com/auth/token", "jwks_uri": "https://appleid.apple.com/auth/keys",
                ]
                return (200, try JSONSerialization.data(withJSONObject: metadata))
            }
            func postForm(_ url: String, fields: [(String, String)], headers: [(String, String)]) async throws -> (status: Int, body: Data) {
                (500, Data())
            }
        }
        let apple = OpenIDClient(
            settings: OpenIDProviderSettings(
                name: "Apple", id: "apple", issuer: "https://appleid.apple.com", clientID: "com.example.shop.web",
                authentication: .apple(teamID: "ABCDE12345", keyID: "XYZ987ABCD", privateKeyPEM: teamKey.pemRepresentation),
                scopes: ["name", "email"]),
            transport: Apple())
        let url = try await apple.authorizationURL(state: "s", nonce: "n", verifier: PKCE.newState(), redirectURI: Self.redirect)
        #expect(url.contains("response_mode=form_post") && url.contains("scope=openid%20name%20email"), "\(url)")
    }
}
