import Foundation
import GRDB
import ShopApplication
import ShopCredentialFile
import ShopIdentity
import ShopModels
import ShopPorts
import ShopSSH
import ShopSandbox
import StorageSQLite
import StorefrontCore
import StorefrontTesting
import StorefrontUI
import Testing

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

    /// Signs in with Sandbox ID from the account screen: the email, the code the sandbox shows, the name.
    func signIn(email: String = "jane@example.com", name: String = "Jane") async throws {
        try await press("u,i")
        await type(email)
        try await press("enter")
        #expect(state.form?.message.description.contains("here it is: 123456") == true, "the sandbox shows the code on screen")
        await type("123456")
        try await press("tab")
        await type(name)
        try await press("enter")
    }
}

@MainActor
@Suite("Accounts in the shop")
struct AccountFlowTests {
    /// A guest with an empty wallet, the real Sandbox ID controller, carts kept in memory.
    func stack(guestWallet: WalletContents = WalletContents(), flags: StaticFeatureFlags = .defaults) -> TestStack {
        var stack = TestStack(guestWallet: guestWallet, flags: flags)
        stack.carts = InMemoryCartRepository()
        return stack
    }

    @Test func signingInWithSandboxIDMergesTheGuestCartAndStoresTheSession() async throws {
        let stack = stack()
        let driver = await ScriptedDriver(stack: stack)
        try await driver.press("a,down,a")
        try await driver.signIn()
        #expect(driver.state.screen == .account)
        #expect(driver.state.account.title == "Jane")
        #expect(driver.state.shopperLabel == "Jane")
        #expect(driver.state.notice?.text == "Signed in as Jane. Your guest cart was added to your account's cart.")
        #expect(driver.viewModel.liveSignInCount == 0, "the sign-in's session is let go when it ends")
        #expect(driver.state.cartBadge.itemCount == 2)
        let session = try await #require(try AuthManager(credentials: stack.credentials).storedSession())
        #expect(try stack.carts?.lines(forCustomer: "sandbox-id:\(session.userID)").count == 2)
        #expect(try stack.carts?.lines(forCustomer: "guest").isEmpty == true, "the guest cart moved, it was not copied")
        #expect(
            try stack.profiles.profile(forCustomer: "sandbox-id:\(session.userID)")
                == AccountProfile(customerID: "sandbox-id:\(session.userID)", name: "Jane", email: "jane@example.com"))

        try await driver.press("i")
        #expect(driver.state.account.title == "Guest")
        #expect(try await AuthManager(credentials: stack.credentials).storedSession() == nil)
    }

    @Test func aBadEmailAndAWrongCodeAreShownInPlace() async throws {
        let driver = await ScriptedDriver(stack: stack())
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
        stack.signIn = SignInServices(makeController: factory.factory, provider: provider, auth: AuthManager(credentials: stack.credentials))
        let driver = await ScriptedDriver(stack: stack)
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
        stack.signIn = SignInServices(
            makeController: factory.factory, provider: SignInProviderStub(answers), auth: AuthManager(credentials: stack.credentials))
        let driver = await ScriptedDriver(stack: stack)
        try await driver.press("u,i")
        #expect(driver.state.account.title == "Guest")
        #expect(try await AuthManager(credentials: stack.credentials).storedSession() == nil)
    }

    @Test(arguments: [CredentialState.revoked, .notFound])
    func launchSignsOutARevokedOrUnknownUserAndDeletesTheTokens(state: CredentialState) async throws {
        let credentials = CredentialRepositorySpy()
        try await AuthManager(credentials: credentials).save(Fixtures.tokens, userID: "user-1")
        var answers = SignInProviderStub.Answers()
        answers.credentialState = state
        let provider = SignInProviderStub(answers)
        let outcome = await LaunchCheck.run(
            services: SignInServices(
                makeController: SignInControllerFactorySpy(outcome: .failure(.canceled)).factory, provider: provider,
                auth: AuthManager(credentials: credentials)))
        #expect(outcome.account == nil && outcome.notice != nil)
        #expect(try await AuthManager(credentials: credentials).storedSession() == nil)
        #expect(provider.calls == ["credentialState(user-1)"])
    }

    @Test func launchRefreshesAnExpiredAccessToken() async throws {
        let credentials = CredentialRepositorySpy()
        try await AuthManager(credentials: credentials).save(Fixtures.tokens, userID: "user-1")
        var answers = SignInProviderStub.Answers()
        answers.accessToken = .expired
        let provider = SignInProviderStub(answers)
        let services = SignInServices(
            makeController: SignInControllerFactorySpy(outcome: .failure(.canceled)).factory, provider: provider,
            auth: AuthManager(credentials: credentials))
        let outcome = await LaunchCheck.run(services: services)
        #expect(outcome == LaunchCheck.Outcome(account: SignedInAccount(provider: .sandboxID, userID: "user-1"), notice: nil))
        #expect(provider.calls == ["credentialState(user-1)", "verifyAccessToken", "refresh(rt-1)"])
        #expect(try await AuthManager(credentials: credentials).storedSession()?.tokens == Fixtures.refreshedTokens)

        answers.refresh = .failure(.failed("Your sign-in expired. Sign in again."))
        let failing = SignInProviderStub(answers)
        let expired = await LaunchCheck.run(
            services: SignInServices(makeController: services.makeController, provider: failing, auth: AuthManager(credentials: credentials)))
        #expect(expired == LaunchCheck.Outcome(account: nil, notice: "Your sign-in expired. Sign in again."))
        #expect(try await AuthManager(credentials: credentials).storedSession() == nil)
    }

    @Test func addingACardShowsEachErrorThenKeepsOnlyTheToken() async throws {
        let stack = stack()
        let driver = await ScriptedDriver(stack: stack)
        try await driver.press("u,n")
        #expect(driver.state.screen == .form)
        await driver.type("4242424242424241")
        try await driver.press("enter")
        await driver.type("01/20")
        try await driver.press("enter")
        await driver.type("1")
        try await driver.press("enter,enter,enter")
        let form = try #require(driver.state.form)
        #expect(
            form.fields.map(\.error) == [
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
        let driver = await ScriptedDriver(stack: stack(guestWallet: WalletContents(addresses: [Fixtures.jane], defaultAddressID: Fixtures.jane.id)))
        try await driver.press("a,c,enter")
        #expect(driver.state.paymentSheet?.offersCardSetup == true)
        #expect(KeyBindings.footer(for: driver.state).map(\.summary).contains("set up card"))
        try await driver.press("enter")
        #expect(driver.state.screen == .form)
        try await driver.fill("5555555555554444", "1230", "321", "Jane", "95014")
        #expect(driver.state.screen == .paymentSheet)
        #expect(driver.state.paymentSheet?.offersCardSetup == false)
        #expect(driver.state.paymentSheet?.rowValues[.card]?.description.hasPrefix("Mastercard ••4444") == true)
        try await driver.press("p,enter")
        #expect(driver.state.screen == .confirmation)
    }

    @Test func oneTapNeedsTheFlagADefaultCardAndADefaultAddress() async throws {
        let empty = await ScriptedDriver(stack: stack())
        try await empty.press("enter")
        #expect(empty.state.productDetail?.canBuyNow == false)
        #expect(!KeyBindings.footer(for: empty.state).contains { $0.action == .buyNow })

        let ready = await ScriptedDriver(stack: stack(guestWallet: try SandboxWallet().contents()))
        try await ready.press("enter")
        #expect(ready.state.productDetail?.canBuyNow == true)
        try await ready.press("b")
        #expect(ready.state.paymentSheet?.authorizationPrompt != nil, "b goes straight to authorization")
        try await ready.press("enter")
        #expect(ready.state.screen == .confirmation)

        let off = await ScriptedDriver(stack: stack(guestWallet: try SandboxWallet().contents(), flags: StaticFeatureFlags(enabled: [.oneTapCart])))
        try await off.press("enter")
        #expect(off.state.productDetail?.canBuyNow == false)
        try await off.press("b")
        #expect(off.state.screen == .productDetail)
    }

    /// The form asks for the street, city and postal code in the shop's country's order and words.
    @Test(arguments: [
        ("US", ["Country", "Name", "Street", "Apt, suite", "City", "State", "ZIP code", "Email", "Phone"], "e.g. 95014"),
        ("CA", ["Country", "Name", "Street", "Apt, suite", "City", "Province", "Postal code", "Email", "Phone"], "e.g. H3Z 2Y7"),
        ("DE", ["Country", "Name", "Street", "Apt, suite", "Postal code", "City", "Email", "Phone"], "e.g. 26133"),
        ("GB", ["Country", "Name", "Street", "Apt, suite", "Post town", "Postal code", "Email", "Phone"], "e.g. EC1Y 8SY"),
    ])
    func theAddressFormFollowsTheShopsCountry(country: String, labels: [String], postalHint: String) async throws {
        var shop = ShopProfile.standard()
        shop.countryCode = country
        let catalog = Catalog(shop: shop, products: Fixtures.generatedCatalog(count: 3).products)
        let driver = await ScriptedDriver(stack: try TestStack.selling(catalog))
        try await driver.press("u,d")
        let form = try #require(driver.state.form)
        #expect(form.fields.map(\.label.description) == labels)
        #expect(form.fields.first { $0.id == "postalCode" }?.hint == .lookup(postalHint))
        #expect(form.fields.first { $0.id == "country" }?.value == country)
        #expect(form.fields[form.focusedIndex].id == "name", "the country is filled in: typing starts at the name")
    }

    /// Typing another country puts the address fields in that country's order and words, keeping what was typed; the
    /// address is then checked by that country's rules.
    @Test func theAddressFieldsFollowTheCountryTyped() async throws {
        let driver = await ScriptedDriver(stack: stack())
        try await driver.press("u,d")
        for (text, keys) in [("Jane", "tab"), ("Hauptstr. 1", "tab,tab"), ("Berlin", "tab,tab"), ("10115", "up,up,up,up,up,up,backspace,backspace")] {
            await driver.type(text)
            try await driver.press(keys)
        }
        #expect(driver.state.form?.fields.map(\.label) == ["Country", "Name", "Street", "Apt, suite", "City", "State", "ZIP code", "Email", "Phone"])
        await driver.type("D")
        #expect(driver.state.form?.fields.map(\.label).prefix(7).last == "ZIP code", "no country yet")
        await driver.type("E")
        let form = try #require(driver.state.form)
        #expect(form.fields.map(\.label) == ["Country", "Name", "Street", "Apt, suite", "Postal code", "City", "Email", "Phone"])
        #expect(form.fields.map(\.value).prefix(6) == ["DE", "Jane", "Hauptstr. 1", "", "10115", "Berlin"], "what was typed stays")
        #expect(form.fields[form.focusedIndex].id == "country", "the cursor stays in the country field")
        #expect(form.fields.first { $0.id == "postalCode" }?.hint == "e.g. 26133")
        try await driver.press("backspace,backspace")
        await driver.type("CA")
        #expect(
            driver.state.form?.fields.map(\.label).prefix(7) == ["Country", "Name", "Street", "Apt, suite", "City", "Province", "Postal code"])
    }

    @Test func theCountryIsTypedByItsNameAndAnUnknownOneIsToldAtOnce() async throws {
        let driver = await ScriptedDriver(stack: stack())
        try await driver.press("u,d,up,backspace,backspace")
        await driver.type("Ger")
        var country = try #require(driver.state.form?.fields.first)
        #expect(country.hint == "Germany" && country.error == nil, "the names that start with what was typed")
        await driver.type("many")
        country = try #require(driver.state.form?.fields.first)
        #expect(country.hint == "Germany" && country.error == nil)
        #expect(driver.state.form?.fields.map(\.label).prefix(6) == ["Country", "Name", "Street", "Apt, suite", "Postal code", "City"])
        #expect(driver.state.form?.fields.last?.hint == "optional, +49 30 12345678", "Germany's phone example")
        try await driver.press("backspace,backspace,backspace,backspace,backspace,backspace,backspace")
        await driver.type("Xq")
        country = try #require(driver.state.form?.fields.first)
        #expect(
            country.error == "No country is called \u{201C}Xq\u{201D}: type its name or its two-letter code (e.g. Germany or DE).", "before any save")
        try await driver.press("backspace,backspace")
        await driver.type("Deutschland")
        country = try #require(driver.state.form?.fields.first)
        #expect(country.hint == "Germany" && country.error == nil)
    }

    @Test func anAddressIsValidatedInPlaceAndBecomesTheDefault() async throws {
        let stack = stack()
        let driver = await ScriptedDriver(stack: stack)
        try await driver.press("u,d,up,backspace,backspace")
        await driver.type("IS")
        try await driver.press("tab")
        await driver.type("Jane")
        try await driver.press("tab")
        await driver.type("1 Loop Road")
        try await driver.press("tab,tab")
        await driver.type("123")
        try await driver.press("tab,tab")
        await driver.type("jane@example.com")
        try await driver.press("tab,enter")
        // Iceland writes the postal code (3 digits: "123" is one) before the town, and the shop does not ship there.
        let errors = try #require(driver.state.form).fields.map(\.error)
        #expect(
            errors == [
                "Storefront ships only to the United States, Canada, the European Union, the United Kingdom and Japan.", nil, nil, nil, nil,
                "Enter the city.", nil, nil,
            ])
        #expect(driver.state.form?.focusedIndex == 0, "the first field with an error")
        try await driver.press("backspace,backspace")
        await driver.type("US")
        // The form now asks in the United States' order: street, apt, city, state, ZIP code.
        for _ in 0..<4 { try await driver.press("tab") }
        await driver.type("Cupertino")
        try await driver.press("tab")
        await driver.type("California")
        try await driver.press("tab,backspace,backspace,backspace")
        await driver.type("95014")
        try await driver.press("tab,tab,enter")
        #expect(driver.state.screen == .account, "\(driver.state.form?.fields.map(\.error) ?? [])")
        let saved = try #require(try stack.wallets.wallet(forCustomer: "guest").defaultAddress?.address)
        #expect(saved == PostalAddress(street: "1 Loop Road", city: "Cupertino", region: "US-CA", postalCode: "95014", countryCode: "US"))
    }

    @Test func ordersBelongToTheAccountThatPlacedThem() async throws {
        let stack = stack(guestWallet: try SandboxWallet().contents())
        let driver = await ScriptedDriver(stack: stack)
        try await driver.press("a,c,enter,p,enter")
        #expect(driver.state.screen == .confirmation)
        try await driver.press("o")
        #expect(driver.state.orders.totalCount == 1)
        try await driver.signIn()
        try await driver.press("o")
        #expect(driver.state.orders.totalCount == 0, "the guest's order is not the account's")
        #expect(try await stack.orders.count(customer: nil) == 1)
    }
}
