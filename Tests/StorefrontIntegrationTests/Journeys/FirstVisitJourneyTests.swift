import Foundation
import StorefrontTesting
import Testing

/// The first visit, as the README tells it: its first command (`scripts/setup && swift run storefront`) in a real
/// terminal of 80x24 with a fresh home, the payment sheet after `Enter a c Enter` exactly as the README shows it, then
/// `p Enter` to a first purchase, in the order list, kept in the default data folder with its books in order.
///
/// `swift run` is the binary the suite was built with: SwiftPM holds the build folder while `swift test` runs, so a
/// nested `swift run` would wait for it. CI's `.ci/run` runs the README's commands themselves on a fresh clone.
@Suite("Journey: the first visit", .ownThreads)
struct FirstVisitJourneyTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../..").standardized

    @Test func theReadmesFirstCommandToAFirstPurchase() async throws {
        let readme = try String(contentsOf: Self.root.appendingPathComponent("README.md"), encoding: .utf8)
        let block = try #require(readme.firstMatch(of: /```sh\n([^`]*)```/)?.output.1, "the README opens with a sh block")
        let commands = block.split(separator: "\n").map { $0.split(separator: "#")[0].trimmingCharacters(in: .whitespaces) }
        #expect(commands.first == "scripts/setup && swift run storefront", "\(commands)")
        #expect(commands.dropFirst().first?.hasSuffix("swift test --skip-build --scratch-path .build/tests") == true, "\(commands)")
        let ci = try String(contentsOf: Self.root.appendingPathComponent(".ci/run"), encoding: .utf8)
        #expect(ci.split(separator: "\n").last.map(String.init) == commands.dropFirst().first, "CI runs the README's test command as written")

        // The setup script, from the repository, finds everything there and says so with success.
        let setup = try Subprocess.run(Self.root.appendingPathComponent("scripts/setup").path, [], timeout: .seconds(300))
        #expect(setup.status == 0, "scripts/setup: \(setup.stdout) \(setup.stderr)")

        // The shop, as `swift run storefront` starts it: no options, the default data folder under a fresh home.
        let terminal = try TmuxTerminal(columns: 80, rows: 24)
        let dataHome = terminal.directory.appendingPathComponent("share").path
        try terminal.type("cd '\(Self.root.path)' && XDG_DATA_HOME='\(dataHome)' '\(try BuiltProduct.requireStorefront())'; echo EXIT=$?")
        try terminal.waitForShop()
        try terminal.press("Enter")
        try terminal.waitFor("a add  b buy now")
        try terminal.press("a")
        try terminal.waitFor("cart: 1 item")
        try terminal.press("c")
        try terminal.waitFor("Your cart")
        try terminal.press("Enter")
        let sheet = try terminal.waitFor("[ Pay ]")
        let shown = try #require(
            readme.firstMatch(of: /<!-- screen keys="enter,a,c,enter" size="80x24" -->\n```text\n((?s).*?)```/)?.output.1, "the README's sheet")
        func trimmed(_ screen: some StringProtocol) -> [String] {
            var lines = screen.split(separator: "\n", omittingEmptySubsequences: false).map { String($0.reversed().drop { $0 == " " }.reversed()) }
            while lines.last?.isEmpty == true { lines.removeLast() }
            return lines
        }
        #expect(trimmed(sheet) == trimmed(shown), "the README shows the sheet a first visitor sees:\n\(sheet)")

        try terminal.press("p")
        try terminal.waitFor("Enter to confirm")
        try terminal.press("Enter")
        let thanks = try terminal.waitFor("Thank you", timeout: .seconds(30))
        let number = String(try #require(thanks.firstMatch(of: /Order (SF-\d{6}) is paid/)?.1, "\(thanks)"))
        try terminal.press("o")
        try terminal.waitFor(number)
        try terminal.press("q")
        try terminal.waitFor("EXIT=0")
        let data = dataHome + "/storefront"
        #expect(FileManager.default.fileExists(atPath: data + "/storefront.sqlite"), "the shop is kept in the default folder")
        expectShopInvariants(dataDirectory: data, reportingAnUnreadableShop: true)
    }
}
