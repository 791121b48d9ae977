import Foundation
import LiveObjects
import ShopBootstrap
import ShopBundledCatalog
import ShopIdentity
import ShopModels
import ShopPorts
import ShopSessions
import StoragePostgres
import StorefrontCore
import StorefrontTesting
import SystemPackage
import Testing

/// Sign-in by an emailed code, through the shop a session composes, on both databases: a local shopper signs in to the
/// account of their email and stays signed in across launches until the session is ended on another host; a key seen
/// for the first time joins the account whose email its holder proves.
@Suite("Signing in by an emailed code", .serialized, .ownThreads)
@MainActor
struct CodeSignInTests {
    enum Kind: String, CaseIterable, CustomTestStringConvertible {
        case sqlite, postgres
        var testDescription: String { rawValue }
    }

    /// The messages the shop mailed, kept in memory.
    actor MailBag: MailTransport, LiveObject {
        private(set) var sent: [MailMessage] = []
        func send(_ message: MailMessage) async throws(MailTransportError) { sent.append(message) }

        /// The six digits of the last message's code.
        func lastCode() throws -> String {
            let lines = (sent.last?.text ?? "").split(whereSeparator: \.isNewline).map { $0.trimmingCharacters(in: .whitespaces) }
            return try #require(lines.first { $0.count == 6 && $0.allSatisfy(\.isNumber) }, "a code was mailed")
        }
    }

    /// One shop's database, as this host and another host open it.
    func storages(_ kind: Kind) async throws -> (ShopStorage, ShopStorage, String?) {
        switch kind {
        case .sqlite:
            let directory = TemporaryDirectory.make().path
            let open = { () async throws -> ShopStorage in
                try await ShopStorage.openShop(
                    at: .sqlite(directory: FilePath(directory)), catalog: .bundled, pool: .session, migrate: true, environment: [:])
            }
            return (try await open(), try await open(), directory + "/storefront.sqlite")
        case .postgres:
            let fixture = try await PostgresFixture()
            let catalog = try await fixture.importing(try CatalogLoader.load(data: Data(BundledCatalog.json.utf8), source: "bundled"))
            let other = try fixture.anotherClient()
            return (
                ShopStorage.postgres(fixture.database, catalog: catalog),
                ShopStorage.postgres(other, catalog: try await PostgresCatalogImport.open(database: other)), nil
            )
        }
    }

    func compose(_ storage: ShopStorage, _ environment: [String: String], mail: MailBag) async throws -> StorefrontDependencies {
        let mailer = CodeMailer(transport: mail, sender: MailSender(from: MailAddress(name: "Shop", address: "shop@example.com")), shop: "Shop")
        return try await SessionComposition.dependencies(
            storage: storage, configuration: ShopConfiguration(), environment: environment, clock: ContinuousClock(), latency: .zero,
            codeMailer: mailer
        ).dependencies
    }

    func type(_ text: String, on driver: ScriptedDriver) async {
        for character in text { await driver.press(.character(character)) }
    }

    /// Account (u), sign in (i), the email, the mailed code.
    func signIn(_ driver: ScriptedDriver, email: String, mail: MailBag) async throws {
        try await driver.press("u")
        try await driver.press("i")
        #expect(driver.state.form?.fields.first?.id == "email", "asked for the email: \(driver.frameText)")
        await type(email, on: driver)
        await driver.press(.enter)
        #expect(driver.state.form?.message == "If that email can get codes, one is on its way: it lasts 10 minutes.")
        await type(try await mail.lastCode(), on: driver)
        await driver.press(.enter)
    }

    /// Moves the account screen's selection to the row `id`.
    func select(_ id: String, on driver: ScriptedDriver) async throws {
        let index = try #require(driver.state.account.rows.firstIndex { $0.id == id }, "a row \(id)")
        try await driver.press("home")
        for _ in 0..<index { try await driver.press("down") }
        #expect(driver.state.account.selectedRow?.id == id)
    }

    /// The code's message is in the session's language as it stands when the code is asked for: the client's `LANG`,
    /// then what the language key chose.
    @Test func theCodesMessageIsInTheSessionsLanguage() async throws {
        let (here, _, _) = try await storages(.sqlite)
        let mail = MailBag()
        let environment = ["HOME": TemporaryDirectory.make().path, "LANG": "de_AT.UTF-8"]
        let driver = await ScriptedDriver(dependencies: try await compose(here, environment, mail: mail))
        try await driver.press("u")
        try await driver.press("i")
        await type("lena@example.at", on: driver)
        await driver.press(.enter)
        var sent = await mail.sent
        #expect(sent.last?.subject == "Ihr Code für Shop")
        #expect(sent.last?.text.hasPrefix("Guten Tag,\n\nIhr Code für die Anmeldung bei Shop:") == true, "\(sent.last?.text ?? "")")
        await driver.press(.escape)
        await driver.press(.escape)
        try await driver.press("L")
        #expect(driver.state.language == .french)
        try await driver.press("u")
        try await driver.press("i")
        await type("lena@example.at", on: driver)
        await driver.press(.enter)
        sent = await mail.sent
        #expect(sent.count == 2 && sent.last?.subject == "Votre code pour Shop", "\(sent.map(\.subject))")
    }

    @Test(arguments: Kind.allCases)
    func aLocalShopperSignsInByCodeAndStaysSignedInUntilEndedOnAnotherHost(kind: Kind) async throws {
        let (here, there, file) = try await storages(kind)
        let home = TemporaryDirectory.make().path
        let environment = ["HOME": home]
        let mail = MailBag()
        let driver = await ScriptedDriver(dependencies: try await compose(here, environment, mail: mail))
        #expect(driver.state.account.canSignIn && !driver.state.account.isSignedIn)
        try await signIn(driver, email: "Ada@Example.com", mail: mail)
        #expect(driver.state.account.isSignedIn, "\(driver.frameText)")
        #expect(driver.state.account.title == "ada@example.com" && driver.state.notice?.text == "Signed in as ada@example.com.")
        let account = try #require(try await here.accounts.account(verifiedEmail: "ada@example.com"))
        #expect(account.id.hasPrefix("acct_") && account.emailVerifiedAt != nil)
        let sent = await mail.sent
        #expect(sent.count == 1 && sent.first?.to.address == "Ada@Example.com")

        // The next launch finds the session in the credential file and the database: the same account.
        let again = try await compose(here, environment, mail: mail)
        #expect(again.accounts.signedIn?.customerID == account.id && again.accounts.launchNotice == nil)
        let secret = try #require(String(data: try Data(contentsOf: URL(fileURLWithPath: home + "/.config/storefront/credentials")), encoding: .utf8))
        let sessions = try await here.logins.logins(account: account.id, at: Date())
        #expect(sessions.map(\.kind) == [.terminal] && sessions.first?.label == "email code")
        if let file {
            // Only the secret's hash is in the database: no session secret (sfs_…) appears in its file.
            let bytes = try Data(contentsOf: URL(fileURLWithPath: file))
            let token = try #require(secret.range(of: #"sfs_[A-Za-z0-9_-]{43}"#, options: .regularExpression).map { String(secret[$0]) })
            #expect(bytes.range(of: Data(token.utf8)) == nil)
        }

        // The session is listed on the account screen; "sign out everywhere" ends it and signs this shop out.
        #expect(driver.state.account.rows.filter { $0.kind == .session }.map(\.title) == ["Terminal session"])
        try await driver.press("e")
        #expect(!driver.state.account.isSignedIn, "\(driver.frameText)")
        #expect(try await here.logins.logins(account: account.id, at: Date()).isEmpty)
        try await signIn(driver, email: "ada@example.com", mail: mail)
        #expect(driver.state.account.isSignedIn && driver.state.account.title == "ada@example.com")

        // Ended on another host: the next launch here is signed out, and says why.
        #expect(try await there.logins.endAll(account: account.id, at: Date()) == 1)
        let ended = try await compose(here, environment, mail: mail)
        #expect(ended.accounts.signedIn == nil)
        #expect(ended.accounts.launchNotice?.description == LoginCheck.ended.signedOutReason)
    }

    @Test(arguments: Kind.allCases)
    func aNewKeyJoinsTheAccountWhoseEmailItsHolderProves(kind: Kind) async throws {
        let (here, there, _) = try await storages(kind)
        let home = TemporaryDirectory.make().path
        let keyA = "SHA256:" + String(repeating: "a", count: 43)
        let keyB = "SHA256:" + String(repeating: "b", count: 43)
        let first = try #require(try await there.accounts.account(for: .sshKey(fingerprint: keyA), at: Date()))
        try await there.accounts.verify(email: "ada@example.com", for: first.id, at: Date())
        let mail = MailBag()

        // Key A's account is a real one (it has a verified email): nothing to join.
        let withA = try await compose(here, ["HOME": home, SessionCommand.fingerprintVariable: keyA], mail: mail)
        #expect(withA.accounts.signIn == nil && withA.accounts.launchNotice == nil)

        let withB = try await compose(here, ["HOME": home, SessionCommand.fingerprintVariable: keyB], mail: mail)
        #expect(withB.accounts.launchNotice == SessionComposition.newKeyNotice)
        let driver = await ScriptedDriver(dependencies: withB)
        #expect(driver.state.account.canSignIn && driver.state.account.isSignedIn)
        try await signIn(driver, email: "ada@example.com", mail: mail)
        #expect(driver.state.notice?.text == "This key now reaches your account.", "\(driver.frameText)")
        #expect(try await here.accounts.account(for: .sshKey(fingerprint: keyB), at: Date())?.id == first.id)
        let joined = try #require(try await there.accounts.account(id: first.id))
        #expect(Set(joined.waysIn.map(\.wayIn)) == [.sshKey(fingerprint: keyA), .sshKey(fingerprint: keyB)])
        // Both keys are listed on the account screen; key A is removed there and refused at its next connection.
        #expect(driver.state.account.rows.filter { $0.kind == .wayIn }.map(\.id) == ["ssh-key " + keyA, "ssh-key " + keyB])
        try await select("ssh-key " + keyA, on: driver)
        try await driver.press("x")
        #expect(driver.state.notice?.text.description.hasPrefix("Removed SSH key SHA256:aaaaaaa") == true, "\(driver.frameText)")
        await #expect(throws: ServiceStartFailure.self) {
            _ = try await SessionComposition.keyAccount(.keyHolder(fingerprint: keyA), storage: there)
        }
        // Key B is the last way in now: it stays.
        try await select("ssh-key " + keyB, on: driver)
        try await driver.press("x")
        #expect(driver.state.notice?.text.description.contains("the account's last way in, so it stays") == true, "\(driver.frameText)")
        #expect(driver.state.account.rows.filter { $0.kind == .wayIn }.map(\.id) == ["ssh-key " + keyB])
        // The next connection with key B opens key A's account, with nothing left to join.
        let next = try await compose(here, ["HOME": home, SessionCommand.fingerprintVariable: keyB], mail: mail)
        #expect(next.accounts.signedIn?.customerID == first.id && next.accounts.signIn == nil)
    }

    @Test(arguments: Kind.allCases)
    func twoAccountsOnePersonMadeAreMergedWithEverythingTheyHad(kind: Kind) async throws {
        let (here, there, _) = try await storages(kind)
        let now = Date()
        let keyA = WayIn.sshKey(fingerprint: "SHA256:" + String(repeating: "c", count: 43))
        let keyB = WayIn.sshKey(fingerprint: "SHA256:" + String(repeating: "d", count: 43))
        let left = try #require(try await here.accounts.account(for: keyA, at: now))
        let kept = try #require(try await here.accounts.account(for: keyB, at: now))
        try await here.accounts.verify(email: "ada@example.com", for: kept.id, at: now)
        let mug = CartLine(productID: "mug-stdout", name: "stdout Mug", unitPrice: Money(minorUnits: 1_800, currency: .usd), quantity: 2)
        let duck = CartLine(productID: "rubber-duck", name: "Debugging Duck", unitPrice: Money(minorUnits: 700, currency: .usd), quantity: 1)
        try await here.carts.save([mug], forCustomer: left.id)
        try await here.carts.save([duck], forCustomer: kept.id)
        try await here.wallets.addAddress(AccountRepositoryContractTests.office, forCustomer: left.id, makeDefault: true)
        let signIn = AccountSignIn(directory: here.accounts, logins: here.logins, dates: .system)
        _ = try await signIn.startLogin(account: left.id, kind: .browser, label: "email code")

        let moved = try await there.accounts.merge(left.id, into: kept.id)
        #expect(moved.map(\.what) == ["orders", "cart lines", "cards", "addresses", "API tokens", "ways in", "sessions"])
        #expect(moved.map(\.count) == [0, 1, 0, 1, 0, 1, 1])
        #expect(try await here.accounts.account(id: left.id) == nil, "the account left behind is gone")
        #expect(try await here.accounts.account(for: keyA, at: now)?.id == kept.id, "its key reaches the kept account")
        #expect(try await here.carts.lines(forCustomer: kept.id).map(\.productID) == ["rubber-duck", "mug-stdout"])
        #expect(try await here.wallets.wallet(forCustomer: kept.id).addresses.map(\.id) == [AccountRepositoryContractTests.office.id])
        #expect(try await here.logins.logins(account: kept.id, at: now).count == 1)
        await #expect(throws: AccountChangeError.noSuchAccount(left.id)) { _ = try await here.accounts.merge(left.id, into: kept.id) }
    }
}
