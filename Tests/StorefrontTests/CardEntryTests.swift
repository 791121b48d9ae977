import AddressFormats
import Foundation
import GRDB
import ShopApplication
import ShopBootstrap
import ShopBundledCatalog
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
import SystemPackage
import Testing

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
        guard case .failure(let errors) = result else {
            Issue.record("expected errors")
            return
        }
        #expect(
            errors.fields == [
                .number: "This card number is not valid: check the digits.",
                .expiry: "This card expired at the end of 10/26.",
                .securityCode: "Enter the 3-digit security code from the back of the card.",
                .name: "Enter the name on the card.",
                .postalCode: "A postal code has 3 to 10 letters or digits.",
            ])
    }

    @Test func amexNeedsFourDigitsAndLengthsAreChecked() {
        let amex = CardEntry(number: "378282246310005", expiry: "11/26", securityCode: "123", name: "Jane", postalCode: "95014").validated(
            today: today)
        guard case .failure(let errors) = amex else {
            Issue.record("expected errors")
            return
        }
        #expect(errors.fields == [.securityCode: "Amex cards have a 4-digit security code on the front."], "this month is not in the past")
        let short = CardEntry(number: "42424242424242", expiry: "1130", securityCode: "123", name: "J", postalCode: "95014").validated(today: today)
        guard case .failure(let shortErrors) = short else {
            Issue.record("expected errors")
            return
        }
        #expect(shortErrors.fields[.number] == "A Visa number has 13, 16 or 19 digits; this has 14.")
        #expect(shortErrors.fields[.expiry] == nil, "MMYY is read too")
    }

    @Test(arguments: ["", "13/30", "1/2", "ab/cd", "12-30"])
    func badExpiriesAreRefused(expiry: String) {
        let result = CardEntry(number: "4242424242424242", expiry: expiry, securityCode: "123", name: "J", postalCode: "95014").validated(
            today: today)
        guard case .failure(let errors) = result else {
            Issue.record("expected an expiry error for \(expiry)")
            return
        }
        #expect(errors.fields.keys.sorted { $0.rawValue < $1.rawValue } == [.expiry])
    }

    @Test func addressesAreValidatedFieldByField() {
        let problems = AddressEntry(
            name: "", street: "1 Loop Road", street2: String(repeating: "x", count: 121), city: "", region: "Ontario", postalCode: "9501",
            country: "US", email: "jane@", phone: "512 555 0100"
        ).problems()
        #expect(
            problems == [
                .name: "Enter the recipient's name.", .city: "Enter the city.",
                .street2: "The second street line is too long (at most 120 characters).",
                .region: "Enter a state of United States by its code or name, such as AL or Alabama.",
                .postalCode: "Enter the ZIP code as United States writes it, such as 95014.",
                .email: "Enter a valid email address, like name@example.com.",
                .phone: "Enter the phone in international form: + and the country code, such as +1 512 555 0100.",
            ])
        #expect(AddressEntry(Fixtures.jane).problems().isEmpty)
        var withoutState = AddressEntry(Fixtures.jane)
        withoutState.region = ""
        #expect(withoutState.problems() == [.region: "Enter the state."])
        // A region by its name, its code or its ISO code is kept as its ISO code (with a ZIP code there: they must agree).
        withoutState.postalCode = "78701"
        for typed in ["Texas", "tx", "US-TX"] {
            withoutState.region = typed
            #expect(withoutState.contact(id: "a")?.address.region == "US-TX")
        }
    }

    /// Every front (the form, the browser, the API) checks an address by its country's rules.
    @Test func anAddressIsCheckedByItsCountrysRules() {
        func postal(_ code: String, _ country: String) -> String? {
            AddressEntry(name: "A", street: "1 Way", city: "Town", postalCode: code, country: country, email: "a@b.example", phone: "+15555550100")
                .problems()[.postalCode]?.description
        }
        #expect(postal("K1A 0B1", "CA") == nil)
        #expect(postal("95014", "CA") == "Enter the postal code as Canada writes it, such as H3Z 2Y7.")
        #expect(postal("10115", "de") == nil, "the country in any case")
        #expect(postal("D02 X285", "IE") == nil)
        #expect(postal("D02", "IE") == "Enter the Eircode as Ireland writes it, such as A65 F4E2.")
        #expect(postal("", "HK") == nil, "Hong Kong has no postal codes")
        #expect(postal("", "US") == "Enter the ZIP code.")
        let unknown = AddressEntry(
            name: "A", street: "1 Way", city: "Town", postalCode: "12345", country: "XX", email: "a@b.example", phone: "+15555550100")
        #expect(unknown.problems()[.country] == "No country is called \u{201C}XX\u{201D}: type its name or its two-letter code (e.g. Germany or DE).")
    }

    @Test func aCountryIsTakenByItsNameInEveryLanguageTheShopSpeaks() throws {
        for typed in ["Germany", "deutschland", "ALLEMAGNE", "Alemania", "ドイツ", "DEU", "de", " Federal Republic of Germany "] {
            #expect(AddressFormats.country(named: typed)?.code == "DE", "\(typed)")
        }
        #expect(AddressFormats.country(named: "Côte d\u{2019}Ivoire")?.code == "CI", "a typographic apostrophe, as phones type it")
        #expect(AddressFormats.country(named: "cote d'ivoire")?.code == "CI", "without its accent")
        #expect(AddressFormats.country(named: "Bolivia")?.code == "BO", "its common name, not only ISO's")
        #expect(AddressFormats.country(named: "Germ") == nil)
        let berlin = AddressEntry(
            name: "Max", street: "Hauptstr. 1", city: "Berlin", postalCode: "10115", country: "Deutschland", email: "max@example.de",
            phone: "+4930901820")
        #expect(berlin.problems().isEmpty)
        #expect(try #require(berlin.contact(id: "a")).address.countryCode == "DE", "kept as its code")
        let wrongCode = AddressEntry(
            name: "Max", street: "Hauptstr. 1", city: "Berlin", postalCode: "1011", country: "Allemagne", email: "max@example.de")
        #expect(wrongCode.problems()[.postalCode] == "Enter the postal code as Germany writes it, such as 26133.", "Germany's rules")
        #expect(AddressEntry.countryProblem("Germ") == "No country is called \u{201C}Germ\u{201D}: did you mean Germany?")
        #expect(AddressEntry.countryProblem("") == "Enter the country, by its name or its two-letter code (e.g. Germany or DE).")
    }
}

@Suite("Nothing keeps a card number")
struct NoCardNumberTests {
    @MainActor
    @Test func noFileOrTableHoldsTheNumberOrTheSecurityCode() async throws {
        let directory = TemporaryDirectory.make()
        let database = try SQLiteDatabase.open(directory: directory)
        let catalog = try Fixtures.importBundledCatalog(into: database)
        var stack = TestStack(catalog: catalog, guestWallet: WalletContents(addresses: [Fixtures.jane], defaultAddressID: Fixtures.jane.id))
        stack.wallets = InMemoryWalletRepository()
        let wallets = SQLWalletRepository(database: database)
        let credentials = FileCredentialRepository(path: FilePath(directory.appendingPathComponent("credentials").path))
        try await wallets.addAddress(Fixtures.jane, forCustomer: "guest", makeDefault: true)
        var dependencies = stack.dependencies
        dependencies.accounts.wallets = wallets
        dependencies.accounts.signIn = SignInServices(
            makeController: stack.identity.controllerFactory, provider: stack.identity, auth: AuthManager(credentials: credentials))
        dependencies.paymentAuthorization = .onTheSheet(
            wallet: StoredWallet(repository: wallets, owner: dependencies.accounts.walletOwner), methodData: SandboxProcessor.paymentData(for:))
        dependencies.carts = SQLCartRepository(database: database)
        let driver = await ScriptedDriver(dependencies: dependencies)
        try await driver.signIn()
        #expect(driver.state.account.isSignedIn)
        try await wallets.addAddress(Fixtures.jane, forCustomer: "sandbox-id:sbx_sbx2", makeDefault: true)
        try await driver.press("n")
        try await driver.fill("4000000000009995", "0931", "987", "Jane", "95014")
        #expect(try await wallets.wallet(forCustomer: "sandbox-id:sbx_sbx2").cards.count == 1)
        try await driver.press("s,a,c,enter,p,enter")
        #expect(driver.state.paymentSheet?.status == .lookup(DeclineReason.insufficientFunds.message), "the vaulted test card keeps its outcome")

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
            try String.fetchAll(
                db, sql: "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'product_search%' AND name NOT LIKE 'sqlite_%'"
            )
            .flatMap { table in try Row.fetchAll(db, sql: "SELECT * FROM \"\(table)\"").flatMap { row in row.databaseValues.map { "\($0)" } } }
        }
        #expect(!values.isEmpty)
        #expect(!values.contains { $0.contains("4000000000009995") || $0 == "987" || $0 == "\"987\"" })
    }
}
