import Foundation
import GRDB
import ShopCredentialFile
import ShopIdentity
import ShopModels
import ShopPorts
import ShopSSH
import ShopSandbox
import StorageRows
import StorageSQLite
import StorefrontCore
import StorefrontTesting
import StorefrontUI
import Synchronization
import Testing

@Suite("Sandbox ID")
struct SandboxIdentityTests {
    func provider(
        now: @escaping @Sendable () -> Date = { Fixtures.fixedDates.now() },
        directory: any IdentityDirectory = SQLIdentityDirectory(database: Fixtures.bundledShop())
    )
        -> SandboxIdentityProvider
    {
        SandboxIdentityProvider(
            signingKey: Fixtures.signingKey, directory: directory, dates: DateSource(now), ids: .sequential(prefix: "id"), makeCode: { "123456" })
    }

    @Test func nameAndEmailComeOnTheFirstSignInOnly() async throws {
        let sandbox = provider()
        let first = try await sandbox.requestCode(email: "Jane@Example.com")
        #expect(first.isNewUser && first.code == "123456" && first.email == "jane@example.com")
        let credential = try await sandbox.verify(challengeID: first.id, code: "123456", name: "Jane Appleseed", nonce: "n-1")
        #expect(credential.email == "jane@example.com" && credential.fullName == "Jane Appleseed")
        #expect(await sandbox.verifyIdentityToken(try #require(credential.identityToken), nonce: "n-1") == .valid(user: credential.user))
        #expect(
            await sandbox.verifyIdentityToken(try #require(credential.identityToken), nonce: "other")
                == .invalid("the nonce does not match the request"))

        let second = try await sandbox.requestCode(email: "jane@example.com")
        #expect(!second.isNewUser)
        let again = try await sandbox.verify(challengeID: second.id, code: "123456", name: "Someone Else", nonce: nil)
        #expect(again.user == credential.user && again.email == nil && again.fullName == nil)
    }

    @Test func wrongCodesCountDownAndThenTheCodeIsGone() async throws {
        let sandbox = provider()
        let challenge = try await sandbox.requestCode(email: "jane@example.com")
        for left in (1...4).reversed() {
            await #expect(throws: SandboxIdentityProvider.VerificationError.wrongCode(attemptsLeft: left)) {
                try await sandbox.verify(challengeID: challenge.id, code: "000000", name: nil, nonce: nil)
            }
        }
        await #expect(throws: SandboxIdentityProvider.VerificationError.tooManyAttempts) {
            try await sandbox.verify(challengeID: challenge.id, code: "000000", name: nil, nonce: nil)
        }
        await #expect(throws: SandboxIdentityProvider.VerificationError.expired) {
            try await sandbox.verify(challengeID: challenge.id, code: "123456", name: nil, nonce: nil)
        }
    }

    @Test func tokensAreVerifiedExpireAndRefreshOnce() async throws {
        let clock = Mutex(Fixtures.fixedDates.now())
        let sandbox = provider(now: { clock.withLock { $0 } })
        let challenge = try await sandbox.requestCode(email: "jane@example.com")
        let tokens = try #require(try await sandbox.verify(challengeID: challenge.id, code: "123456", name: nil, nonce: nil).tokens)
        let user = try #require(await sandbox.credentialState(forUserID: "sbx_id2") == .authorized ? "sbx_id2" : nil)
        #expect(await sandbox.verifyAccessToken(tokens.accessToken) == .valid(user: user))
        var forged = tokens.accessToken
        forged.removeLast()
        forged += forged.hasSuffix("A") ? "B" : "A"
        #expect(await sandbox.verifyAccessToken(forged) == .invalid("the signature does not match this install's key"))
        let otherInstall = SandboxIdentityProvider(
            signingKey: .init(), directory: SQLIdentityDirectory(database: Fixtures.bundledShop()), dates: Fixtures.fixedDates)
        #expect(await otherInstall.verifyAccessToken(tokens.accessToken) == .invalid("the signature does not match this install's key"))

        clock.withLock { $0 = $0.addingTimeInterval(3_601) }
        #expect(await sandbox.verifyAccessToken(tokens.accessToken) == .expired)
        let renewed = try await sandbox.refresh(refreshToken: tokens.refreshToken)
        #expect(await sandbox.verifyAccessToken(renewed.accessToken) == .valid(user: user))
        await #expect(throws: SignInError.self, "a refresh token works once") { try await sandbox.refresh(refreshToken: tokens.refreshToken) }

        try await sandbox.revoke(userID: user)
        #expect(await sandbox.credentialState(forUserID: user) == .revoked)
        await #expect(throws: SignInError.self) { try await sandbox.refresh(refreshToken: renewed.refreshToken) }
        #expect(await sandbox.credentialState(forUserID: "nobody") == .notFound)
    }

    @Test func sshKeyFingerprintsHaveOpenSSHsForm() {
        let fingerprint = SSHPublicKeyIdentity.fingerprint(ofKeyBlob: Data("key".utf8))
        #expect(fingerprint.hasPrefix("SHA256:") && !fingerprint.contains("="))
        #expect(SSHPublicKeyIdentity.isFingerprint(fingerprint))
        #expect(!SSHPublicKeyIdentity.isFingerprint("SHA256:short"))
    }
}
