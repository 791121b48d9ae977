import Clocks
import Crypto
import Foundation
import LiveObjects
import ShopApplication
import ShopBootstrap
import ShopIdentity
import ShopModels
import ShopOpenID
import ShopPorts
import SnapshotTesting
import StorageRows
import StorageSQLite
import StorefrontCore
import StorefrontTesting
import StorefrontUI
import Testing

/// Signing in with a provider from a terminal, headless: the choice, the link with its QR code, and the wait that the
/// browser's outcome ends, over the shop's own tables (SQLite in memory), in-process wakeups and a provider whose
/// discovery is the test's.
@MainActor
@Suite("Sign-in with a provider from a terminal")
struct TerminalProviderSignInTests {
    /// Discovery of a provider without a device endpoint: a terminal's sign-in goes through the shop's link.
    final class Discovery: OpenIDTransport, LiveObject {
        static let issuer = "https://id.example"
        func get(_ url: String) async throws -> (status: Int, body: Data) {
            let metadata = [
                "issuer": Self.issuer, "authorization_endpoint": Self.issuer + "/authorize", "token_endpoint": Self.issuer + "/token",
                "jwks_uri": Self.issuer + "/jwks",
            ]
            return (200, try JSONSerialization.data(withJSONObject: metadata))
        }
        func postForm(_ url: String, fields: [(String, String)], headers: [(String, String)]) async throws -> (status: Int, body: Data) {
            (500, Data())
        }
    }

    final class Outbox: MailTransport, @unchecked Sendable, LiveObject {
        func send(_ message: MailMessage) async throws(MailTransportError) {}
    }

    nonisolated static let handle = String(repeating: "h", count: 22)
    static var handleHash: String { Encodings.sha256Hex(handle) }
    static let identity = TerminalSignInOutcome.signedIn(
        issuer: Discovery.issuer, subject: "u1", email: "ada@example.com", emailVerified: true, name: "Ada")

    let wakeups = InMemorySignInWakeups()

    /// A local terminal's stack whose sign-in offers the emailed code and Example ID; links open at shop.example.
    func stack(clock: any Clock<Duration> = ContinuousClock()) -> (TestStack, SQLTerminalSignIns, SQLAccountDirectory) {
        var stack = TestStack()
        let database = stack.database
        let directory = SQLAccountDirectory(database: database)
        let terminals = SQLTerminalSignIns(database: database)
        let accounts = AccountSignIn(directory: directory, logins: SQLLogins(database: database), dates: Fixtures.fixedDates)
        let codes = EmailCodes(store: SQLSignInCodes(database: database), key: SymmetricKey(data: Data(repeating: 7, count: 32))) { "123456" }
        let mailer = CodeMailer(transport: Outbox(), sender: MailSender(from: MailAddress(name: "Shop", address: "shop@example.com")), shop: "Shop")
        let client = OpenIDClient(
            settings: OpenIDProviderSettings(
                name: "Example ID", id: "example", issuer: Discovery.issuer, clientID: "shop", authentication: .none, emailDomains: ["example.com"]),
            transport: Discovery())
        let providers = SessionComposition.TerminalProviders(
            clients: [client], webOrigin: "https://shop.example", terminals: terminals, wakeups: wakeups, clock: clock, newHandle: { Self.handle })
        let signIn = SessionComposition.CodeSignIn(mailer: mailer, codes: codes, accounts: accounts, providers: providers)
        stack.signIn = signIn.signIn(kind: .terminal, client: "local:test", auth: AuthManager(credentials: InMemoryCredentialRepository()))
        stack.waysIn = WaysInAccess(directory: directory, logins: accounts.logins)
        return (stack, terminals, directory)
    }

    /// The account screen's sign-in, Example ID picked ("e" from the emailed code): its link and QR code on screen.
    func linkShown(_ driver: ScriptedDriver) async throws {
        try await driver.press("u")
        try await driver.press("i")
        await driver.press(.character("e"))
        await driver.press(.enter)
        #expect(driver.state.form?.link == "https://shop.example/sign-in/terminal/" + Self.handle, "\(driver.frameText)")
    }

    @Test("the choice and the link at 80x24, 40x12 and 200x60", arguments: ["provider-choice", "provider-link"], SnapshotTests.sizes)
    func screen(name: String, size: Size) async throws {
        let driver = await ScriptedDriver(stack: stack().0, size: size)
        if name == "provider-choice" {
            try await driver.press("u")
            try await driver.press("i")
        } else {
            try await linkShown(driver)
        }
        assertSnapshot(of: driver.frameText, as: .lines, named: "\(name)-\(size)")
    }

    @Test func theBrowsersOutcomeSignsTheWaitingTerminalInAtOnce() async throws {
        let (stack, terminals, directory) = stack()
        let driver = await ScriptedDriver(stack: stack)
        try await linkShown(driver)
        #expect(driver.state.form?.fields == [] && driver.state.form?.status == "Waiting for Example ID…")
        #expect(driver.frameText.contains(TerminalLinkCode.of(Self.handle)), "the code the page shows too: \(driver.frameText)")

        // What `web` does once the provider called back: binds its state, files who signed in, wakes the terminal.
        #expect(try await terminals.open(handleHash: Self.handleHash, stateHash: "s1", at: Date(), lifetime: 600) == "example")
        #expect(try await terminals.handle(forState: "s1") == Self.handleHash)
        #expect(try await terminals.finish(handleHash: Self.handleHash, outcome: Self.identity, at: Date()))
        await wakeups.wake(Self.handleHash)

        #expect(await driver.waitUntil { $0.account.isSignedIn }, "\(driver.frameText)")
        #expect(
            driver.state.form == nil && driver.state.notice?.text.description.hasPrefix("Signed in as") == true,
            "\(String(describing: driver.state.notice))")
        let account = try #require(try await directory.account(for: .openID(issuer: Discovery.issuer, subject: "u1"), at: Date()))
        #expect(account.email == "ada@example.com" && account.emailVerifiedAt != nil, "the provider vouched for the email")
        #expect(try await terminals.take(handleHash: Self.handleHash) == nil, "the outcome is taken once")
        #expect(try await !terminals.finish(handleHash: Self.handleHash, outcome: .refused("late"), at: Date()), "and ends once")
    }

    @Test func aRefusalInTheBrowserIsToldInTheTerminal() async throws {
        let (stack, terminals, _) = stack()
        let driver = await ScriptedDriver(stack: stack)
        try await linkShown(driver)
        _ = try await terminals.finish(handleHash: Self.handleHash, outcome: .refused("Example ID did not sign you in: it expired"), at: Date())
        await wakeups.wake(Self.handleHash)
        #expect(await driver.waitUntil { $0.form == nil }, "\(driver.frameText)")
        #expect(driver.state.notice == Notice(.error, "Example ID did not sign you in: it expired") && !driver.state.account.isSignedIn)
    }

    @Test func escStopsTheWaitAndALateOutcomeChangesNothing() async throws {
        let (stack, terminals, _) = stack()
        let driver = await ScriptedDriver(stack: stack)
        try await linkShown(driver)
        await driver.press(.escape)
        #expect(driver.state.form == nil && driver.state.notice == Notice(.info, "Sign-in canceled. You are shopping as a guest."))
        _ = try await terminals.finish(handleHash: Self.handleHash, outcome: Self.identity, at: Date())
        await wakeups.wake(Self.handleHash)
        #expect(await !driver.waitUntil(deadline: .milliseconds(200)) { $0.account.isSignedIn })
    }

    @Test func aLinkNobodyOpensExpires() async throws {
        let clock = TestClock()
        let driver = await ScriptedDriver(stack: stack(clock: clock).0)
        try await linkShown(driver)
        #expect(driver.state.form?.link != nil, "nothing ends while the clock stands")
        // Ten minutes pass on the flow's clock (again, should the wait not have begun to sleep yet).
        var expired = false
        for _ in 0..<20 where !expired {
            await clock.advance(by: .seconds(OpenIDTerminalFlow.lifetime))
            expired = await driver.waitUntil(deadline: .seconds(3)) { $0.form == nil }
        }
        #expect(expired, "\(driver.frameText)")
        #expect(driver.state.notice == Notice(.error, "The link expired: nobody signed in within 10 minutes. Start again."))
    }

    @Test func aChoiceTakesAFirstLetterSpaceOrBackspace() async throws {
        let driver = await ScriptedDriver(stack: stack().0)
        try await driver.press("u")
        try await driver.press("i")
        var seen: [String] = []
        for key in [Key.character("e"), .character("e"), .character(" "), .backspace, .character("z")] {
            await driver.press(key)
            seen.append(driver.state.form?.fields.first?.value ?? "")
        }
        #expect(seen == ["Example ID", "Email code", "Example ID", "Email code", "Email code"])
    }
}
