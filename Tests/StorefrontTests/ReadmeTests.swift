import Foundation
import StorefrontTesting
import StorefrontUI
import Testing

/// The README and the screens page show what the shop draws today, and the README stays an index.
@MainActor
@Suite("README")
struct ReadmeTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../..").standardized

    @Test func screenCapturesMatchTheShop() async throws {
        var count = 0
        for page in ["README.md", "docs/screens.md"] {
            let text = try String(contentsOf: Self.root.appendingPathComponent(page), encoding: .utf8)
            let pattern = try NSRegularExpression(
                pattern: #"<!-- screen keys="([^"]*)" size="([^"]*)" -->\n```text\n(.*?)```\n<!-- /screen -->"#, options: [.dotMatchesLineSeparators])
            for match in pattern.matches(in: text, range: NSRange(text.startIndex..., in: text)) {
                let keys = String(text[Range(match.range(at: 1), in: text)!])
                let size = Size(parsing: String(text[Range(match.range(at: 2), in: text)!]))!
                let captured = String(text[Range(match.range(at: 3), in: text)!])
                let driver = await ScriptedDriver(size: size)
                try await driver.press(keys)
                #expect(
                    captured == driver.program.frame.plainText + "\n",
                    "\(page) capture for keys \"\(keys)\" is stale: run scripts/update-readme-screens")
                count += 1
            }
        }
        #expect(count >= 6)
    }

    /// At most 300 lines, and every page it links to is there.
    @Test func theReadmeIsShortAndItsLinksResolve() throws {
        let text = try String(contentsOf: Self.root.appendingPathComponent("README.md"), encoding: .utf8)
        #expect(text.split(separator: "\n", omittingEmptySubsequences: false).count <= 300)
        let links = text.matches(of: /\]\((docs\/[^)#]+)(#[^)]*)?\)/).map { String($0.output.1) }
        #expect(links.count >= 14)
        for link in links {
            #expect(FileManager.default.fileExists(atPath: Self.root.appendingPathComponent(link).path), "README links to \(link), which is missing")
        }
    }
}
