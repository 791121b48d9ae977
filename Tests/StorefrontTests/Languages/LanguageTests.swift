import Foundation
import ShopBootstrap
import ShopLanguages
import ShopSessions
import StorefrontCore
import StorefrontTesting
import StorefrontUI
import Testing

/// The catalogs, their plural rules, the words a `Localized` becomes, and how a session's language is chosen.
@Suite("Languages")
struct LanguageTests {
    static let resources = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent(
        "../../../Sources/ShopLanguages/Resources")

    static func catalog(_ file: String) throws -> MessageCatalog {
        try MessageCatalog(parsing: String(contentsOf: resources.appendingPathComponent(file), encoding: .utf8))
    }

    /// The `%@` and `%n$@` a text fills, counted: a translation fills the same ones (positions may move).
    static func argumentCount(_ text: String) -> Int {
        text.matches(of: /%(\d+\$)?@/).count
    }

    // MARK: The catalogs

    @Test(arguments: ["de.po", "fr.po", "es.po", "ja.po"])
    func everyWordOfTheTemplateIsTranslatedWithItsArguments(file: String) throws {
        let template = try Self.catalog("storefront.pot")
        let catalog = try Self.catalog(file)
        #expect(template.entries.count > 400, "the template was read: \(template.entries.count) entries")
        var untranslated: [String] = []
        for entry in template.entries {
            guard let translated = catalog.entry(context: entry.context, id: entry.id), !translated.isFuzzy,
                !translated.forms.isEmpty, translated.forms.allSatisfy({ !$0.isEmpty })
            else {
                untranslated.append(entry.id)
                continue
            }
            #expect(translated.forms.count == catalog.pluralRule.formCount || entry.pluralID == nil, "\(file): \(entry.id)")
            let wanted = Self.argumentCount(entry.pluralID ?? entry.id)
            // A language's singular may leave the count out ("jede Woche"), never add one.
            for form in translated.forms where Self.argumentCount(form) > wanted || (entry.pluralID == nil && Self.argumentCount(form) != wanted) {
                Issue.record("\(file): \"\(entry.id)\" fills \(Self.argumentCount(form)) arguments in \"\(form)\", the English \(wanted)")
            }
        }
        #expect(untranslated.isEmpty, "\(file) lacks \(untranslated.count): \(untranslated.prefix(10))")
    }

    /// CLDR's plural categories for whole numbers, written out apart from the catalogs' `Plural-Forms`, which must agree.
    @Test func eachCatalogsPluralRuleIsCLDRs() throws {
        let cldr: [(file: String, category: (Int) -> Int)] = [
            ("de.po", { $0 == 1 ? 0 : 1 }),
            // French: one for 0 and 1; many for a non-zero multiple of a million ("1 000 000 d'articles").
            ("fr.po", { $0 == 0 || $0 == 1 ? 0 : $0 % 1_000_000 == 0 ? 1 : 2 }),
            ("es.po", { $0 == 1 ? 0 : $0 % 1_000_000 == 0 && $0 != 0 ? 1 : 2 }),
            ("ja.po", { _ in 0 }),
        ]
        let counts = Array(0...250) + [1_000, 1_000_000, 2_000_000, 1_000_001, 10_000_000]
        for (file, category) in cldr {
            let rule = try Self.catalog(file).pluralRule
            let wrong = counts.filter { rule.form(for: $0) != category($0) }
            #expect(wrong.isEmpty, "\(file) (\(rule.source)) differs from CLDR at \(wrong.prefix(5))")
        }
    }

    @Test func aCatalogThatDoesNotReadIsToldByLine() {
        #expect(throws: CatalogError(line: 2, problem: "\\q is not an escape PO files use")) {
            try MessageCatalog(parsing: "msgid \"a\"\nmsgstr \"b\\q\"\n")
        }
        #expect(throws: CatalogError(line: 1, problem: "a string with no msgid or msgstr before it")) {
            try MessageCatalog(parsing: "\"orphan\"\n")
        }
        #expect(throws: CatalogError(line: 0, problem: "msgid \"a\" is in the catalog twice")) {
            try MessageCatalog(parsing: "msgid \"a\"\nmsgstr \"b\"\n\nmsgid \"a\"\nmsgstr \"c\"\n")
        }
        #expect(throws: CatalogError(line: 0, problem: "Plural-Forms' plural= has a ? without its :")) {
            try PluralRule(header: "nplurals=2; plural=n == 1 ? 0;")
        }
        #expect(throws: CatalogError(line: 0, problem: "Plural-Forms needs nplurals=1…6 and plural=…, not nplurals=9; plural=0;")) {
            try PluralRule(header: "nplurals=9; plural=0;")
        }
    }

    @Test func aCatalogReadsContinuedStringsContextsPluralsAndLeavesFuzzyOnesOut() throws {
        let catalog = try MessageCatalog(
            parsing: """
                msgid ""
                msgstr ""
                "Language: de\\n"
                "Plural-Forms: nplurals=2; plural=(n != 1);\\n"

                #, fuzzy
                msgid "Cart"
                msgstr "Karre"

                msgctxt "in a sentence"
                msgid "state"
                msgstr "das Bundesland"

                #, objc-format
                msgid "%@ line"
                msgid_plural "%@ lines"
                msgstr[0] "%@ Position"
                msgstr[1] "%@ "
                "Positionen"
                """)
        #expect(catalog.languageCode == "de")
        #expect(catalog.entry(id: "Cart")?.isFuzzy == true)
        #expect(catalog.entry(context: "in a sentence", id: "state")?.forms == ["das Bundesland"])
        #expect(catalog.entry(id: "state") == nil, "a context is part of the key")
        #expect(catalog.entry(id: "%@ line")?.forms == ["%@ Position", "%@ Positionen"])
    }

    // MARK: Words

    @Test func interpolationsBecomeTheKeysArgumentsAndAPercentStaysAPercent() {
        let name = "Tee"
        let words: Localized = "Added \(name) ×\(2) at 10% off"
        #expect(words.key == "Added %@ ×%@ at 10%% off")
        #expect(words.arguments == [.text("Tee"), .number(2)])
        #expect(words.description == "Added Tee ×2 at 10% off")
        #expect(words == "Added Tee ×2 at 10% off", "words equal the English they read as")
        #expect(Localized.verbatim("Cart").isTranslated == false)
    }

    @Test func aTranslationFillsArgumentsInItsOwnOrderAndFallsBackToEnglish() {
        #expect(Translation.fill("%2$@ liegt in %1$@", ["Ontario", "K1A"]) == "K1A liegt in Ontario")
        #expect(Translation.fill("%@ und %@ zu 100%%", ["a", "b"]) == "a und b zu 100%")
        #expect(Translation.fill("« %@ » — %@ €", ["Thé", "5"]) == "« Thé » — 5 €", "text around directives kept whole")
        #expect(Translation.fill("%3$@|%9$@|%99999999999999999999$@|%0$@", ["a", "b", "c"]) == "c|||", "no such argument: nothing")
        #expect(Translation.fill("50% off, %d, %1x and 100%", ["a"]) == "50% off, %d, %1x and 100%", "not a directive: kept")
        let german = Translation.for(.german)
        #expect(german.string("Your cart") == "Ihr Warenkorb")
        #expect(german.string(.plural("cart: \(3) item", "cart: \(3) items", count: 3)) == "Warenkorb: 3 Artikel")
        #expect(german.string("Words no catalog holds") == "Words no catalog holds")
        #expect(german.translates("Words no catalog holds") == false)
        #expect(Translation.for(.japanese).string("Thank you!") == "ありがとうございました！")
        #expect(Translation.for(.french).string(.plural("cart: \(0) item", "cart: \(0) items", count: 0)) == "panier\u{a0}: 0 article")
    }

    @Test func theTestLanguageIsLongerAccentedAndBracketedAndKeepsItsArguments() {
        let shown = Pseudo.words("Pay %@ now")
        #expect(shown.hasPrefix("[Þàý %@ ñöŵ") && shown.hasSuffix("]"))
        #expect(Double(shown.count) >= 1.3 * Double("Pay %@ now".count), "\(shown)")
        let pseudo = Translation.for(.pseudo)
        #expect(pseudo.string("Checkout").hasPrefix("[Çĥéçķöûţ"))
        #expect(pseudo.string("Not in the catalog") == "Not in the catalog", "a word outside the catalog shows as it is")
        #expect(pseudo.string(.verbatim("Tee")) == "Tee")
    }

    // MARK: Choosing the language

    @Test func aLanguageIsNamedAsPeopleAndProgramsWriteIt() {
        #expect(Language.named("de_DE.UTF-8") == .german)
        #expect(Language.named("fr_CA@euro") == .french)
        #expect(Language.named("JA") == .japanese)
        #expect(Language.named("es-419") == .spanish)
        #expect(Language.named("en-XA") == .pseudo)
        #expect(Language.named("pt_BR.UTF-8") == nil)
        #expect(Language.named("") == nil)
    }

    @Test func theLocaleVariablesAreReadInGettextsOrder() {
        #expect(Language.fromEnvironment(["LANG": "de_DE.UTF-8"]) == .german)
        #expect(Language.fromEnvironment(["LANG": "de_DE.UTF-8", "LC_MESSAGES": "fr_FR.UTF-8"]) == .french)
        #expect(Language.fromEnvironment(["LANG": "de_DE.UTF-8", "LC_ALL": "ja_JP.UTF-8"]) == .japanese)
        #expect(Language.fromEnvironment(["LANG": "de_DE.UTF-8", "LANGUAGE": "pt:es"]) == .spanish)
        #expect(Language.fromEnvironment(["LANG": "C.UTF-8", "LANGUAGE": "de"]) == nil, "LANGUAGE is read only under a real locale")
        #expect(Language.fromEnvironment(["LANG": "POSIX"]) == nil)
        #expect(Language.fromEnvironment([:]) == nil)
    }

    @Test func aBrowsersAcceptLanguageIsReadByWeight() {
        #expect(Language.fromAcceptLanguage("pt-BR, de;q=0.5, fr;q=0.8") == .french)
        #expect(Language.fromAcceptLanguage("ja-JP,ja;q=0.9,en-US;q=0.8") == .japanese)
        #expect(Language.fromAcceptLanguage("de;q=0, es;q=0.1") == .spanish)
        #expect(Language.fromAcceptLanguage("en-XA") == nil, "a browser never picks the test language")
        #expect(Language.fromAcceptLanguage("*, pt") == nil)
        #expect(Language.fromAcceptLanguage("de;q=abc") == nil, "a weight that does not read is nought")
    }

    @Test func aSessionsLanguageIsTheClientsThenTheShopsThenTheTerminalsThenEnglish() throws {
        var configuration = ShopConfiguration()
        #expect(SessionComposition.language(environment: [:], configuration: configuration) == .english)
        #expect(SessionComposition.language(environment: ["LANG": "es_ES.UTF-8"], configuration: configuration) == .spanish)
        try configuration.set("language", to: "ja", source: "test", line: nil)
        #expect(SessionComposition.language(environment: ["LANG": "es_ES.UTF-8"], configuration: configuration) == .japanese)
        let client = [SessionLanguage.variable: "de", "LANG": "C.UTF-8"]
        #expect(SessionComposition.language(environment: client, configuration: configuration) == .german)
        #expect(throws: ConfigurationError.self) { try configuration.set("language", to: "klingon", source: "test", line: nil) }
    }

    @Test func anSSHClientsLocaleVariablesAreTakenOnlyWhenShortAndPrintable() {
        #expect(SessionLanguage.accepts(name: "LANG", value: "de_DE.UTF-8"))
        #expect(SessionLanguage.accepts(name: "LC_ALL", value: "ja_JP.UTF-8"))
        #expect(!SessionLanguage.accepts(name: "PATH", value: "/tmp"), "only locale variables")
        #expect(!SessionLanguage.accepts(name: "LANG", value: String(repeating: "a", count: 65)))
        #expect(!SessionLanguage.accepts(name: "LANG", value: "de DE"))
        #expect(!SessionLanguage.accepts(name: "LANG", value: "de\u{1b}[2J"))
    }

    // MARK: The key

    @MainActor
    @Test func theLanguageKeyStepsThroughTheShippedLanguagesAndSaysWhichInTheNewOne() async {
        var stack = TestStack()
        stack.language = .spanish
        let store = await TestStore(dependencies: stack.dependencies)
        #expect(store.state.shell.language == .spanish, "the session opens in its language")
        store.send(.nextLanguage) {
            $0.shell.language = .japanese
            $0.shell.notice = Notice(.info, "Language: 日本語. L changes it.")
        }
        store.send(.nextLanguage) {
            $0.shell.language = .english
            $0.shell.notice = Notice(.info, "Language: English. L changes it.")
        }
        await store.finish()
    }

    /// A signed-in account keeps the language it chose with the key: its next session opens in it, whatever its
    /// client's locale says; a guest's choice is its session's alone.
    @MainActor
    @Test func anAccountKeepsTheLanguageItChose() async throws {
        var stack = TestStack()
        stack.signedIn = SignedInAccount(provider: .sshKey, userID: "SHA256:berlin")
        let customer = try #require(stack.signedIn?.customerID)
        let driver = await ScriptedDriver(stack: stack)
        #expect(driver.state.language == .english)
        try await driver.press("L")
        #expect(driver.state.language == .german)
        #expect(try stack.profiles.profile(forCustomer: customer)?.language == "de")

        stack.language = .french
        let next = await ScriptedDriver(stack: stack)
        #expect(next.state.language == .german, "the account's choice, over the client's French")
        try await next.press("L")
        #expect(next.state.language == .french)
        #expect(try stack.profiles.profile(forCustomer: customer)?.language == "fr")

        var guest = TestStack()
        let visit = await ScriptedDriver(stack: guest)
        try await visit.press("L")
        #expect(try guest.profiles.profile(forCustomer: guest.guestID)?.language == nil, "a guest keeps nothing")
        guest.language = .spanish
        #expect(await ScriptedDriver(stack: guest).state.language == .spanish)
    }

    @MainActor
    @Test func theScreensSpeakTheSessionsLanguage() async throws {
        var stack = TestStack()
        stack.language = .german
        let driver = await ScriptedDriver(stack: stack)
        try await driver.press("c")
        #expect(driver.frameText.contains("Ihr Warenkorb ist leer."), "\(driver.frameText)")
        try await driver.press("L")
        #expect(driver.frameText.contains("Votre panier est vide."), "\(driver.frameText)")
        #expect(driver.frameText.contains("Langue\u{a0}: Français. L la change."), "\(driver.frameText)")
    }
}
