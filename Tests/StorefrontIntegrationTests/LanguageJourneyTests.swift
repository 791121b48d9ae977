import Foundation
import StorefrontTesting
import Testing

/// The shop in a shopper's language, in real processes: an SSH client's `LANG` over the embedded server, the shop's
/// own `--lang`, and `storefront run` in a Japanese terminal.
@Suite("Languages in real processes", .serialized, .ownThreads)
struct LanguageJourneyTests {
    /// The ssh command line for `server` with `LANG` set to `locale` and sent (`SendEnv`, as Debian's ssh_config does).
    func ssh(_ server: ServeProcess, key: String, locale: String) -> String {
        "LC_ALL= LANG=\(locale) ssh -o SendEnv=LANG " + server.sshArguments(key: key).map { "'\($0)'" }.joined(separator: " ")
    }

    @Test func aBerlinShopperOverSSHIsServedInGermanFromTheirLANGAndPaysInIt() throws {
        let server = try ServeProcess()
        let key = try server.makeClientKey("berlin")
        let terminal = try TmuxTerminal()
        try terminal.type(ssh(server, key: key, locale: "de_DE.UTF-8") + "; echo EXIT=$?")
        let first = try terminal.waitFor("Warenkorb: leer", timeout: .seconds(30))
        #expect(first.contains("Produkte") && first.contains("Hilfe") && first.contains("beenden"), "\(first)")
        try terminal.press("Enter", "a", "c", "Enter")
        let sheet = try terminal.waitFor("Bezahlen bei Storefront")
        #expect(sheet.contains("Zwischensumme") && sheet.contains("Quittung an"), "\(sheet)")
        try terminal.press("p", "Enter")
        let thanks = try terminal.waitFor("Vielen Dank!")
        #expect(thanks.firstMatch(of: /Bestellung SF-\d{6} ist bezahlt\./) != nil, "\(thanks)")
        // L changes the language for the rest of the session, and says so in the new one.
        try terminal.press("L")
        try terminal.waitFor("Langue\u{a0}: Français")
        try server.leave(terminal)
    }

    @Test func aClientThatNamesNoLanguageTheShopSpeaksGetsTheShopsOwn() throws {
        let server = try ServeProcess(arguments: ["--lang", "es"])
        let key = try server.makeClientKey("lisboa")
        let terminal = try TmuxTerminal()
        try terminal.type(ssh(server, key: key, locale: "pt_PT.UTF-8") + "; echo EXIT=$?")
        let first = try terminal.waitFor("carrito: vacío", timeout: .seconds(30))
        #expect(first.contains("Productos"), "\(first)")
        try server.leave(terminal)
    }

    @Test func runInAJapaneseTerminalIsInJapaneseLaidOutInWideCharacters() throws {
        let binary = try BuiltProduct.requireStorefront()
        let terminal = try TmuxTerminal(columns: 80, rows: 24)
        try terminal.type("LC_ALL= LANG=ja_JP.UTF-8 '\(binary)' run --data-dir '\(terminal.directory.path)/data'; echo EXIT=$?")
        let first = try terminal.waitFor("カート: 空", timeout: .seconds(30))
        #expect(first.contains("商品一覧"), "\(first)")
        try terminal.press("c")
        let cart = try terminal.waitFor("カートは空です。")
        // Each wide character takes two columns: the header's right edge is still the terminal's.
        let header = try #require(cart.split(separator: "\n").first { $0.contains("カート: 空") })
        #expect(header.hasSuffix("カート: 空") || header.hasSuffix("カート: 空 "), "\(header)")
        try terminal.press("q")
        try terminal.waitFor("EXIT=0")
    }
}
