import Foundation
import Testing
import StorefrontTesting
import StorefrontUI

/// The README's screen captures are what the shop draws today.
@MainActor
@Suite("README")
struct ReadmeTests {
    @Test func screenCapturesMatchTheShop() async throws {
        let readme = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../README.md")
        let text = try String(contentsOf: readme, encoding: .utf8)
        let pattern = try NSRegularExpression(pattern: #"<!-- screen keys="([^"]*)" size="([^"]*)" -->\n```text\n(.*?)```\n<!-- /screen -->"#, options: [.dotMatchesLineSeparators])
        let matches = pattern.matches(in: text, range: NSRange(text.startIndex..., in: text))
        #expect(matches.count >= 5)
        for match in matches {
            let keys = String(text[Range(match.range(at: 1), in: text)!])
            let size = Size(parsing: String(text[Range(match.range(at: 2), in: text)!]))!
            let captured = String(text[Range(match.range(at: 3), in: text)!])
            let driver = ScriptedDriver(size: size)
            try await driver.press(keys)
            #expect(captured == driver.program.frame.plainText + "\n", "README capture for keys \"\(keys)\" is stale: run scripts/update-readme-screens")
        }
    }
}
