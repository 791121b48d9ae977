import ShopLanguages
import SnapshotTesting
import StorefrontCore
import StorefrontTesting
import StorefrontUI
import Testing

/// Every shopper's screen in each shipped language at 80x24: what a translator checks a translation against.
@MainActor
@Suite("Screens in each language")
struct LanguageSnapshotTests {
    nonisolated static let languages: [Language] = Language.shipped.filter { $0 != .english }

    @Test("every screen at 80x24 in German, French, Spanish and Japanese", arguments: PseudoLocaleWalkTests.screens.map(\.name), languages)
    func screen(name: String, language: Language) async throws {
        let keys = PseudoLocaleWalkTests.screens.first { $0.name == name }!.keys
        var stack = TestStack()
        stack.language = language
        let driver = await ScriptedDriver(stack: stack, size: Size(columns: 80, rows: 24))
        try await driver.press(keys)
        assertSnapshot(of: driver.frameText, as: .lines, named: "\(name)-\(language.tag)")
    }
}
