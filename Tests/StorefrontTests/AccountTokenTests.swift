import Foundation
import ShopModels
import ShopPorts
import ShopSandbox
import StorageRows
import StorageSQLite
import StorefrontCore
import StorefrontTesting
import Testing

/// API tokens on the account screen: made with a name, the secret shown once, listed, revoked.
@MainActor
@Suite("API tokens on the account screen")
struct AccountTokenTests {
    static let owner = "ssh:SHA256:Z1vQ0xKk3pQy7lL9b0mX2yq1cVbN8aF4dE6rT0uI2oP"

    /// A key holder whose tokens go to the stack's database, minted with a known secret.
    func stack() -> (TestStack, SQLAPITokenRepository) {
        var stack = TestStack()
        let repository = SQLAPITokenRepository(database: stack.database)
        stack.signedIn = SignedInAccount(provider: .sshKey, userID: String(Self.owner.dropFirst(4)))
        stack.apiTokens = APITokenAccess(repository: repository) { name, owner, time in
            (
                "sfp_secret_for_\(name)",
                APITokenRecord(
                    id: "tok_\(name)", name: name, owner: owner, scope: .shop, secretHash: "hash-of-\(name)", lastFour: "2345", createdAt: time)
            )
        }
        return (stack, repository)
    }

    @Test func aNamedTokenIsMadeItsSecretShownOnceAndItIsListed() async throws {
        let (stack, repository) = stack()
        let driver = await ScriptedDriver(stack: stack)
        try await driver.press("u")
        #expect(driver.state.account.canMakeTokens)
        try await driver.press("t")
        #expect(driver.state.form?.purpose == .apiToken)
        await driver.type("deploy")
        try await driver.press("enter")

        #expect(driver.state.form == nil)
        #expect(driver.state.account.newToken?.name == "deploy")
        #expect(driver.state.account.newToken?.secret == "sfp_secret_for_deploy")
        #expect(driver.state.account.tokens.map(\.id) == ["tok_deploy"])
        let row = try #require(driver.state.account.rows.last)
        #expect(row.kind == .token && row.id == "tok_deploy" && row.title == "deploy" && row.detail == "sfp_…2345 · shop · never used")
        #expect(try await repository.tokens(owner: Self.owner).map(\.secretHash) == ["hash-of-deploy"], "kept as its hash, for the key's customer id")
        let frame = try #require(driver.renderer.lastFrameText)
        #expect(frame.contains("sfp_secret_for_deploy") && frame.contains("shown once"), "\(frame)")

        try await driver.press("s,u")
        #expect(driver.state.account.newToken == nil, "not shown again")
        #expect(!(driver.renderer.lastFrameText ?? "").contains("sfp_secret_for_deploy"))
    }

    @Test func aBlankNameIsRefusedInPlace() async throws {
        let (stack, repository) = stack()
        let driver = await ScriptedDriver(stack: stack)
        try await driver.press("u,t,enter")
        #expect(driver.state.form?.fields.first?.error == "Enter 1 to 60 characters on one line.")
        #expect(try await repository.tokens(owner: nil).isEmpty)
    }

    @Test func revokingTheSelectedTokenTakesItOffTheList() async throws {
        let (stack, repository) = stack()
        let driver = await ScriptedDriver(stack: stack)
        try await driver.press("u,t")
        await driver.type("ci")
        try await driver.press("enter")
        try await driver.press("end,x")
        #expect(driver.state.account.tokens.isEmpty)
        #expect(driver.state.notice?.text.description.contains("Revoked the token ci") == true)
        #expect(try await repository.tokens(owner: nil).first?.revokedAt == Fixtures.fixedDates.now())
    }

    @Test func aGuestIsToldTokensAreForAccounts() async throws {
        var guest = TestStack()
        guest.apiTokens = .init(repository: SQLAPITokenRepository(database: guest.database)) { _, _, _ in
            Issue.record("a guest minted a token")
            return ("", APITokenRecord(id: "", name: "", owner: "", scope: .shop, secretHash: "", lastFour: "", createdAt: Date()))
        }
        let driver = await ScriptedDriver(stack: guest)
        try await driver.press("u,t")
        #expect(driver.state.form == nil)
        #expect(driver.state.account.canMakeTokens == false)
    }

    @Test func aTokensNameFollowsOneRuleInEveryFront() {
        #expect(APITokenRecord.isValidName("laptop scripts"))
        #expect(APITokenRecord.isValidName(String(repeating: "x", count: 60)))
        for bad in ["", "   ", String(repeating: "x", count: 61), "two\nlines", "tab\there", "\u{202E}gnp.exe", "bell\u{07}"] {
            #expect(!APITokenRecord.isValidName(bad), "\(bad.debugDescription)")
        }
    }
}
