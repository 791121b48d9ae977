import Foundation
import Testing
import StoreClients
import StoreCredentialFile
import StoreIdentity
import StoreSSH
import StoreModels
import StoreSandbox
import StoreSQLite
import GRDB
import StorefrontCore
import StorefrontTesting
import StorefrontUI

extension ScriptedDriver {
    /// Types `text` one character at a time, as a shopper would, then waits for its effects.
    func type(_ text: String) async {
        for character in text { await press(.character(character), settle: false) }
        await settle()
    }

    /// Fills a form from its focused field on: types each value, then Enter (the last Enter submits).
    func fill(_ values: String...) async throws {
        for value in values {
            await type(value)
            try await press("enter")
        }
    }
}

@Suite("Card entry")
struct CardEntryTests {
    let today = CardExpiry(month: 11, year: 2026)

    @Test(arguments: [
        ("4242424242424242", PaymentNetwork.visa), ("5555555555554444", .mastercard), ("2223003122003222", .mastercard),
        ("378282246310005", .amex), ("6011111111111117", .discover), ("3566002020360505", .jcb),
    ])
    func theNetworkComesFromThePrefix(number: String, network: PaymentNetwork) throws {
        let code = network == .amex ? "1234" : "123"
        let card = try CardEntry(number: number, expiry: "12/30", securityCode: code, name: "Jane", postalCode: "95014").validated(today: today).get()
        #expect(card.network == network)
        #expect(card.lastFour == String(number.suffix(4)))
    }

    @Test func eachFieldGetsItsOwnError() throws {
        let result = CardEntry(number: "4242 4242 4242 4241", expiry: "10/26", securityCode: "12", name: " ", postalCode: "!").validated(today: today)
        guard case .failure(let errors) = result else { Issue.record("expected errors"); return }
        #expect(errors.fields == [
            .number: "This card number is not valid: check the digits.",
            .expiry: "This card expired at the end of 10/26.",
            .securityCode: "Enter the 3-digit security code from the back of the card.",
            .name: "Enter the name on the card.",
            .postalCode: "A postal code has 3 to 10 letters or digits.",
        ])
    }

    @Test func amexNeedsFourDigitsAndLengthsAreChecked() {
        let amex = CardEntry(number: "378282246310005", expiry: "11/26", securityCode: "123", name: "Jane", postalCode: "95014").validated(today: today)
        guard case .failure(let errors) = amex else { Issue.record("expected errors"); return }
        #expect(errors.fields == [.securityCode: "Amex cards have a 4-digit security code on the front."], "this month is not in the past")
        let short = CardEntry(number: "42424242424242", expiry: "1130", securityCode: "123", name: "J", postalCode: "95014").validated(today: today)
        guard case .failure(let shortErrors) = short else { Issue.record("expected errors"); return }
        #expect(shortErrors.fields[.number] == "A Visa number has 13, 16 or 19 digits; this has 14.")
        #expect(shortErrors.fields[.expiry] == nil, "MMYY is read too")
    }

    @Test(arguments: ["", "13/30", "1/2", "ab/cd", "12-30"])
    func badExpiriesAreRefused(expiry: String) {
        let result = CardEntry(number: "4242424242424242", expiry: expiry, securityCode: "123", name: "J", postalCode: "95014").validated(today: today)
        guard case .failure(let errors) = result else { Issue.record("expected an expiry error for \(expiry)"); return }
        #expect(errors.fields.keys.sorted { $0.rawValue < $1.rawValue } == [.expiry])
    }

    @Test func addressesAreValidatedFieldByField() {
        let problems = AddressEntry(name: "", street: "1 Loop Road", city: "", postalCode: "9501", country: "US", email: "jane@", phone: "12").problems()
        #expect(problems == [
            .name: "Enter the recipient's name.", .city: "Enter the city.",
            .postalCode: "A US ZIP code is 5 digits, or 5+4 like 95014-2083.",
            .email: "Enter a valid email address, like name@example.com.",
            .phone: "A phone number has 7 to 15 digits, optionally with + ( ) - and spaces.",
        ])
        #expect(AddressEntry(Fixtures.jane).problems().isEmpty)
    }
}

@Suite("Credential file")
struct FileCredentialStoreTests {
    let directory = TemporaryDirectory.make()
    var path: String { directory.appendingPathComponent("storefront/credentials").path }

    @Test func writesAPrivateFileAtomicallyAndReadsItBack() throws {
        let store = FileCredentialStore(path: path)
        try store.set("secret-1", forKey: "a")
        try store.set("secret-2", forKey: "b")
        let attributes = try FileManager.default.attributesOfItem(atPath: path)
        #expect((attributes[.posixPermissions] as? Int) == 0o600)
        let parent = try FileManager.default.attributesOfItem(atPath: (path as NSString).deletingLastPathComponent)
        #expect((parent[.posixPermissions] as? Int) == 0o700)
        #expect(try FileCredentialStore(path: path).string(forKey: "a") == "secret-1")
        try store.removeValue(forKey: "a")
        #expect(try store.string(forKey: "a") == nil)
        #expect(try store.string(forKey: "b") == "secret-2")
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: (path as NSString).deletingLastPathComponent)
        #expect(leftovers == ["credentials"], "no temporary file is left behind")
    }

    /// Read or write access for group or others: 0620, 0602 and 0610 are refused as 0644 is.
    @Test(arguments: [0o644, 0o640, 0o604, 0o620, 0o602, 0o610])
    func refusesAFileOthersCanReadOrWrite(mode: Int) throws {
        let store = FileCredentialStore(path: path)
        try store.set("secret", forKey: "a")
        try FileManager.default.setAttributes([.posixPermissions: mode], ofItemAtPath: path)
        #expect(throws: CredentialFileError.permissionsTooOpen(path: path, mode: mode_t(mode))) { try store.string(forKey: "a") }
        let message = "\(CredentialFileError.permissionsTooOpen(path: path, mode: mode_t(mode)))"
        #expect(message.contains("are too open") && message.contains("chmod 600"))
        #expect(!message.contains("secret"))
        #expect(throws: CredentialFileError.self) { try store.set("other", forKey: "b") }
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: path)
        #expect(try String(contentsOfFile: path, encoding: .utf8).contains("secret"), "a refused file is never overwritten")
    }

    @Test func refusesASymbolicLinkAndLeavesItsTargetAlone() throws {
        let target = path + "-real"
        try FileManager.default.createDirectory(atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        _ = FileManager.default.createFile(atPath: target, contents: Data(#"{"a":"secret"}"#.utf8), attributes: [.posixPermissions: 0o600])
        try FileManager.default.createSymbolicLink(atPath: path, withDestinationPath: target)
        let store = FileCredentialStore(path: path)
        #expect(throws: CredentialFileError.self) { try store.string(forKey: "a") }
        #expect(throws: CredentialFileError.self) { try store.set("other", forKey: "b") }
        #expect(try String(contentsOfFile: target, encoding: .utf8) == #"{"a":"secret"}"#)
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: path) == target, "the link is not replaced")
    }

    @Test func aDamagedFileIsNamedAndKept() throws {
        try FileManager.default.createDirectory(atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        _ = FileManager.default.createFile(atPath: path, contents: Data("not json".utf8), attributes: [.posixPermissions: 0o600])
        let store = FileCredentialStore(path: path)
        #expect(throws: CredentialFileError.damaged(path: path)) { try store.string(forKey: "a") }
        #expect(throws: CredentialFileError.damaged(path: path)) { try store.set("x", forKey: "a") }
        #expect(try String(contentsOfFile: path, encoding: .utf8) == "not json")
    }

    @Test func authManagerKeepsTheSessionInTheRealFile() throws {
        let auth = AuthManager(store: FileCredentialStore(path: path))
        #expect(try auth.storedSession() == nil)
        try auth.save(Fixtures.tokens, userID: "sbx_1")
        let reopened = AuthManager(store: FileCredentialStore(path: path))
        #expect(try reopened.storedSession() == AuthManager.StoredSession(userID: "sbx_1", tokens: Fixtures.tokens))
        try reopened.clear()
        #expect(try auth.storedSession() == nil)
        #expect(try auth.accessToken() == nil && auth.refreshToken() == nil)
    }
}

@Suite("Sandbox ID")
struct SandboxIdentityTests {
    func provider(now: @escaping @Sendable () -> Date = { Fixtures.fixedDates.now() }, directory: any IdentityDirectory = InMemoryIdentityDirectory()) -> SandboxIdentityProvider {
        SandboxIdentityProvider(signingKey: Fixtures.signingKey, directory: directory, dates: DateSource(now), ids: .sequential(prefix: "id"), makeCode: { "123456" })
    }

    @Test func nameAndEmailComeOnTheFirstSignInOnly() async throws {
        let sandbox = provider()
        let first = try await sandbox.requestCode(email: "Jane@Example.com")
        #expect(first.isNewUser && first.code == "123456" && first.email == "jane@example.com")
        let credential = try await sandbox.verify(challengeID: first.id, code: "123456", name: "Jane Appleseed", nonce: "n-1")
        #expect(credential.email == "jane@example.com" && credential.fullName == "Jane Appleseed")
        #expect(await sandbox.verifyIdentityToken(try #require(credential.identityToken), nonce: "n-1") == .valid(user: credential.user))
        #expect(await sandbox.verifyIdentityToken(try #require(credential.identityToken), nonce: "other") == .invalid("the nonce does not match the request"))

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
        let otherInstall = SandboxIdentityProvider(signingKey: .init(), directory: InMemoryIdentityDirectory(), dates: Fixtures.fixedDates)
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

import Synchronization

@MainActor
@Suite("Accounts in the shop")
struct AccountFlowTests {
    /// A guest with an empty wallet, the real Sandbox ID controller, carts kept in memory.
    func stack(guestWallet: WalletContents = WalletContents(), flags: StaticFeatureFlags = .defaults) -> TestStack {
        var stack = TestStack(guestWallet: guestWallet, flags: flags)
        stack.carts = InMemoryCartStore()
        return stack
    }

    func signIn(_ driver: ScriptedDriver, email: String = "jane@example.com", name: String = "Jane") async throws {
        try await driver.press("u,i")
        await driver.type(email)
        try await driver.press("enter")
        #expect(driver.state.form?.message.contains("here it is: 123456") == true, "the sandbox shows the code on screen")
        await driver.type("123456")
        try await driver.press("tab")
        await driver.type(name)
        try await driver.press("enter")
    }

    @Test func signingInWithSandboxIDMergesTheGuestCartAndStoresTheSession() async throws {
        let stack = stack()
        let driver = ScriptedDriver(stack: stack)
        try await driver.press("a,down,a")
        try await signIn(driver)
        #expect(driver.state.screen == .account)
        #expect(driver.state.account.title == "Jane")
        #expect(driver.state.shopperLabel == "Jane")
        #expect(driver.state.notice?.text == "Signed in as Jane. Your guest cart was added to your account's cart.")
        #expect(driver.state.cartBadge.itemCount == 2)
        let session = try #require(try AuthManager(store: stack.credentials).storedSession())
        #expect(try stack.carts?.lines(forCustomer: "sandbox-id:\(session.userID)").count == 2)
        #expect(try stack.carts?.lines(forCustomer: "guest").isEmpty == true, "the guest cart moved, it was not copied")
        #expect(try stack.profiles.profile(forCustomer: "sandbox-id:\(session.userID)") == AccountProfile(customerID: "sandbox-id:\(session.userID)", name: "Jane", email: "jane@example.com"))

        try await driver.press("i")
        #expect(driver.state.account.title == "Guest")
        #expect(try AuthManager(store: stack.credentials).storedSession() == nil)
    }

    @Test func aBadEmailAndAWrongCodeAreShownInPlace() async throws {
        let driver = ScriptedDriver(stack: stack())
        try await driver.press("u,i")
        await driver.type("jane")
        try await driver.press("enter")
        #expect(driver.state.form?.fields.first?.error == "Enter a valid email address, like name@example.com.")
        await driver.type("@example.com")
        try await driver.press("enter")
        await driver.type("000000")
        try await driver.press("tab,enter")
        #expect(driver.state.form?.fields.first?.error == "That code is not right: 4 tries left.")
        try await driver.press("esc")
        #expect(driver.state.notice?.text == "Sign-in canceled. You are shopping as a guest.")
        #expect(driver.state.screen == .account)
    }

    @Test func eachSignInGetsAFreshControllerAndFailuresLeaveAGuest() async throws {
        var stack = stack()
        let factory = SignInControllerFactorySpy(outcome: .failure(.failed("Sandbox ID is unavailable: down")))
        let provider = SignInProviderStub()
        stack.signIn = SignInServices(makeController: factory.factory, provider: provider, auth: AuthManager(store: stack.credentials))
        let driver = ScriptedDriver(stack: stack)
        try await driver.press("u,i")
        #expect(driver.state.notice == Notice(.error, "Sandbox ID is unavailable: down"))
        factory.outcome = .success(TestCredential(user: "user-1", email: "sam@example.org", fullName: nil, identityToken: "id-token"))
        try await driver.press("i")
        #expect(factory.made.count == 2 && factory.made[0] !== factory.made[1])
        #expect(factory.made.map(\.requests.first?.requestedScopes) == [[.fullName, .email], [.fullName, .email]])
        #expect(provider.calls == ["verifyIdentityToken(id-2)"], "the identity token is checked with the request's nonce")
        #expect(driver.state.account.title == "sam@example.org")
    }

    @Test func anIdentityTokenThatDoesNotVerifyIsRefused() async throws {
        var stack = stack()
        var answers = SignInProviderStub.Answers()
        answers.identityToken = .expired
        let factory = SignInControllerFactorySpy(outcome: .success(TestCredential(user: "user-1", identityToken: "old")))
        stack.signIn = SignInServices(makeController: factory.factory, provider: SignInProviderStub(answers), auth: AuthManager(store: stack.credentials))
        let driver = ScriptedDriver(stack: stack)
        try await driver.press("u,i")
        #expect(driver.state.account.title == "Guest")
        #expect(try AuthManager(store: stack.credentials).storedSession() == nil)
    }

    @Test(arguments: [CredentialState.revoked, .notFound])
    func launchSignsOutARevokedOrUnknownUserAndDeletesTheTokens(state: CredentialState) async throws {
        let store = CredentialStoreSpy()
        try AuthManager(store: store).save(Fixtures.tokens, userID: "user-1")
        var answers = SignInProviderStub.Answers()
        answers.credentialState = state
        let provider = SignInProviderStub(answers)
        let outcome = await LaunchCheck.run(services: SignInServices(makeController: SignInControllerFactorySpy(outcome: .failure(.canceled)).factory, provider: provider, auth: AuthManager(store: store)))
        #expect(outcome.account == nil && outcome.notice != nil)
        #expect(try AuthManager(store: store).storedSession() == nil)
        #expect(provider.calls == ["credentialState(user-1)"])
    }

    @Test func launchRefreshesAnExpiredAccessToken() async throws {
        let store = CredentialStoreSpy()
        try AuthManager(store: store).save(Fixtures.tokens, userID: "user-1")
        var answers = SignInProviderStub.Answers()
        answers.accessToken = .expired
        let provider = SignInProviderStub(answers)
        let services = SignInServices(makeController: SignInControllerFactorySpy(outcome: .failure(.canceled)).factory, provider: provider, auth: AuthManager(store: store))
        let outcome = await LaunchCheck.run(services: services)
        #expect(outcome == LaunchCheck.Outcome(account: SignedInAccount(provider: .sandboxID, userID: "user-1"), notice: nil))
        #expect(provider.calls == ["credentialState(user-1)", "verifyAccessToken", "refresh(rt-1)"])
        #expect(try AuthManager(store: store).storedSession()?.tokens == Fixtures.refreshedTokens)

        answers.refresh = .failure(.failed("Your sign-in expired. Sign in again."))
        let failing = SignInProviderStub(answers)
        let expired = await LaunchCheck.run(services: SignInServices(makeController: services.makeController, provider: failing, auth: AuthManager(store: store)))
        #expect(expired == LaunchCheck.Outcome(account: nil, notice: "Your sign-in expired. Sign in again."))
        #expect(try AuthManager(store: store).storedSession() == nil)
    }

    @Test func addingACardShowsEachErrorThenKeepsOnlyTheToken() async throws {
        let stack = stack()
        let driver = ScriptedDriver(stack: stack)
        try await driver.press("u,n")
        #expect(driver.state.screen == .form)
        await driver.type("4242424242424241")
        try await driver.press("enter")
        await driver.type("01/20")
        try await driver.press("enter")
        await driver.type("1")
        try await driver.press("enter,enter,enter")
        let form = try #require(driver.state.form)
        #expect(form.fields.map(\.error) == [
            "This card number is not valid: check the digits.", "This card expired at the end of 01/20.",
            "Enter the 3-digit security code from the back of the card.", "Enter the name on the card.", "Enter the postal code.",
        ])
        #expect(form.focusedIndex == 0, "the first field with an error gets the focus")
        #expect(driver.frameText.contains("! This card number is not valid: check the digits."))

        try await driver.press("backspace")
        await driver.type("2")
        try await driver.press("tab,backspace,backspace")
        await driver.type("30")
        try await driver.press("tab")
        await driver.type("23")
        try await driver.press("tab")
        await driver.type("Jane Appleseed")
        try await driver.press("tab")
        await driver.type("95014")
        try await driver.press("enter")
        #expect(driver.state.screen == .account)
        #expect(driver.state.notice?.text == "Saved Visa ••4242.")
        let wallet = try stack.wallets.wallet(forCustomer: "guest")
        #expect(wallet.cards.count == 1 && wallet.defaultCardID == wallet.cards.first?.id)
        #expect(wallet.cards.first?.id.contains("4242424242424242") == false)
        #expect(wallet.cards.first?.expiry == CardExpiry(month: 1, year: 2030))
    }

    @Test func setUpCardFromTheSheetOpensTheFormAndReturnsToCheckout() async throws {
        let driver = ScriptedDriver(stack: stack(guestWallet: WalletContents(addresses: [Fixtures.jane], defaultAddressID: Fixtures.jane.id)))
        try await driver.press("a,c,enter")
        #expect(driver.state.paymentSheet?.offersCardSetup == true)
        #expect(KeyBindings.footer(for: driver.state).map(\.summary).contains("set up card"))
        try await driver.press("enter")
        #expect(driver.state.screen == .form)
        try await driver.fill("5555555555554444", "1230", "321", "Jane", "95014")
        #expect(driver.state.screen == .paymentSheet)
        #expect(driver.state.paymentSheet?.offersCardSetup == false)
        #expect(driver.state.paymentSheet?.rowValues[.card]?.hasPrefix("Mastercard ••4444") == true)
        try await driver.press("p,enter")
        #expect(driver.state.screen == .confirmation)
    }

    @Test func oneTapNeedsTheFlagADefaultCardAndADefaultAddress() async throws {
        let empty = ScriptedDriver(stack: stack())
        try await empty.press("enter")
        #expect(empty.state.productDetail?.canBuyNow == false)
        #expect(!KeyBindings.footer(for: empty.state).contains { $0.action == .buyNow })

        let ready = ScriptedDriver(stack: stack(guestWallet: try SandboxWallet().contents()))
        try await ready.press("enter")
        #expect(ready.state.productDetail?.canBuyNow == true)
        try await ready.press("b")
        #expect(ready.state.paymentSheet?.authorizationPrompt != nil, "b goes straight to authorization")
        try await ready.press("enter")
        #expect(ready.state.screen == .confirmation)

        let off = ScriptedDriver(stack: stack(guestWallet: try SandboxWallet().contents(), flags: StaticFeatureFlags(enabled: [.oneTapCart])))
        try await off.press("enter")
        #expect(off.state.productDetail?.canBuyNow == false)
        try await off.press("b")
        #expect(off.state.screen == .productDetail)
    }

    @Test func anAddressIsValidatedInPlaceAndBecomesTheDefault() async throws {
        let stack = stack()
        let driver = ScriptedDriver(stack: stack)
        try await driver.press("u,d")
        await driver.type("Jane")
        try await driver.press("tab")
        await driver.type("1 Loop Road")
        try await driver.press("tab,tab")
        await driver.type("123")
        try await driver.press("tab,backspace,backspace")
        await driver.type("IS")
        try await driver.press("tab")
        await driver.type("jane@example.com")
        try await driver.press("tab,enter")
        let errors = try #require(driver.state.form).fields.map(\.error)
        #expect(errors == [nil, nil, "Enter the city.", nil, "Storefront ships to US addresses only.", nil, nil])
        #expect(driver.state.form?.focusedIndex == 2, "the first field with an error")
        await driver.type("Cupertino")
        try await driver.press("tab,tab,backspace,backspace")
        await driver.type("US")
        try await driver.press("up,backspace,backspace,backspace")
        await driver.type("95014")
        for _ in 0..<3 { try await driver.press("tab") }
        try await driver.press("enter")
        #expect(driver.state.screen == .account, "\(driver.state.form?.fields.map(\.error) ?? [])")
        #expect(try stack.wallets.wallet(forCustomer: "guest").defaultAddress?.address.city == "Cupertino")
    }

    @Test func ordersBelongToTheAccountThatPlacedThem() async throws {
        let stack = stack(guestWallet: try SandboxWallet().contents())
        let driver = ScriptedDriver(stack: stack)
        try await driver.press("a,c,enter,p,enter")
        #expect(driver.state.screen == .confirmation)
        try await driver.press("o")
        #expect(driver.state.orders.totalCount == 1)
        try await signIn(driver)
        try await driver.press("o")
        #expect(driver.state.orders.totalCount == 0, "the guest's order is not the account's")
        #expect(try stack.orders.count(customer: nil) == 1)
    }
}

@Suite("Nothing keeps a card number")
struct NoCardNumberTests {
    @MainActor
    @Test func noFileOrTableHoldsTheNumberOrTheSecurityCode() async throws {
        let directory = TemporaryDirectory.make()
        let database = try StoreDatabase.open(directory: directory)
        let catalog = try SQLiteCatalogRepository.open(database: database, catalogData: Data(BundledCatalog.json.utf8), source: "bundled")
        var stack = TestStack(catalog: catalog, guestWallet: WalletContents(addresses: [Fixtures.jane], defaultAddressID: Fixtures.jane.id))
        stack.wallets = InMemoryWalletStore()
        let wallets = SQLiteWalletStore(database: database)
        let credentials = FileCredentialStore(path: directory.appendingPathComponent("credentials").path)
        try wallets.addAddress(Fixtures.jane, forCustomer: "guest", makeDefault: true)
        var dependencies = stack.dependencies
        dependencies.accounts.wallets = wallets
        dependencies.accounts.signIn = SignInServices(makeController: stack.identity.controllerFactory, provider: stack.identity, auth: AuthManager(store: credentials))
        dependencies.paymentAuthorization = .sandbox(wallet: StoredWallet(store: wallets, owner: dependencies.accounts.walletOwner), ids: stack.ids)
        dependencies.carts = SQLiteCartStore(database: database)
        let driver = ScriptedDriver(dependencies: dependencies)
        try await driver.press("u,i")
        await driver.type("jane@example.com")
        try await driver.press("enter")
        await driver.type("123456")
        try await driver.press("tab,enter")
        #expect(driver.state.account.isSignedIn)
        try wallets.addAddress(Fixtures.jane, forCustomer: "sandbox-id:sbx_sbx2", makeDefault: true)
        try await driver.press("n")
        try await driver.fill("4000000000009995", "0931", "987", "Jane", "95014")
        #expect(try wallets.wallet(forCustomer: "sandbox-id:sbx_sbx2").cards.count == 1)
        try await driver.press("s,a,c,enter,p,enter")
        #expect(driver.state.paymentSheet?.status == DeclineReason.insufficientFunds.message, "the vaulted test card keeps its outcome")

        // Every byte of every file the shop wrote, the SQLite database and its WAL included.
        _ = try await database.pool.writeWithoutTransaction { db in try db.checkpoint(.full) }
        let files = try FileManager.default.subpathsOfDirectory(atPath: directory.path)
        #expect(files.contains("storefront.sqlite") && files.contains("credentials"))
        for file in files {
            let data = try Data(contentsOf: directory.appendingPathComponent(file))
            let text = String(decoding: data, as: UTF8.self)
            #expect(!text.contains("4000000000009995") && !text.contains("4000 0000 0000 9995"), "\(file) holds the card number")
            if !file.hasPrefix("storefront.sqlite") { #expect(!text.contains("987"), "\(file) holds the security code") }
        }
        // Three digits can occur anywhere in a database file by chance, so its values are checked one by one.
        let values = try await database.pool.read { db in
            try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'product_search%' AND name NOT LIKE 'sqlite_%'")
                .flatMap { table in try Row.fetchAll(db, sql: "SELECT * FROM \"\(table)\"").flatMap { row in row.databaseValues.map { "\($0)" } } }
        }
        #expect(!values.isEmpty)
        #expect(!values.contains { $0.contains("4000000000009995") || $0 == "987" || $0 == "\"987\"" })
    }
}
