import ShopModels
import StorefrontCore
import StorefrontTesting
import StorefrontUI
import Testing

/// Every screen at every size from the minimum to 120x40: no text is drawn over a box's border, and the line
/// that asks to charge is always whole.
@MainActor
@Suite("Layout sweep")
struct LayoutSweepTests {
    nonisolated static let screens: [(name: String, keys: String)] = [
        ("product list", ""), ("search", "/,m,u"), ("product", "enter"), ("cart", "enter,a,down,a,c"),
        ("payment sheet", "enter,a,c,enter"), ("chooser", "enter,a,c,enter,enter"), ("consent prompt", "enter,a,c,enter,p"),
        ("declined", "enter,a,c,enter,enter,down,down,enter,p,enter"), ("confirmation", "enter,a,c,enter,p,enter"),
        ("orders", "enter,a,c,enter,p,enter,o"), ("order", "enter,a,c,enter,p,enter,o,enter"), ("account", "u"),
        ("card form", "u,n"), ("address form", "u,d"), ("sign-in", "u,i"), ("help", "?"), ("help on the sheet", "enter,a,c,enter,?"),
    ]

    @Test("no text over a border, at any size from 40x12 to 120x40", arguments: screens.map(\.name))
    func noTextOverABorder(screen: String) async throws {
        let keys = try #require(Self.screens.first { $0.name == screen }).keys
        let driver = await ScriptedDriver(size: Size(columns: 80, rows: 24))
        try await driver.press(keys)
        // Every size in Unicode; ASCII's boxes are the same shapes, so every fourth size and the edges.
        for (charset, step) in [(Charset.unicode, 1), (.ascii, 4)] {
            for columns in Array(stride(from: 40, to: 120, by: step)) + [120] {
                for rows in Array(stride(from: 12, to: 40, by: step)) + [40] {
                    let frame = layout(driver.state, Size(columns: columns, rows: rows), charset: charset)
                    let problems = Self.brokenBorders(frame.plainText, charset: charset)
                    #expect(problems.isEmpty, "\(screen) at \(columns)x\(rows) (\(charset)): \(problems)\n\(frame.plainText)")
                    if !problems.isEmpty { return }
                }
            }
        }
    }

    /// The consent prompt's question and its keys are each on the screen whole, inside the sheet, at every size.
    @Test func theConsentLineIsWholeAtEverySize() async throws {
        let driver = await ScriptedDriver(size: Size(columns: 80, rows: 24))
        // Enough in the cart that the amount is long.
        try await driver.press("enter,a,a,a,a,a,a,a,a,a,c,enter,p")
        let prompt = try #require(driver.state.paymentSheet?.authorizationPrompt)
        let question = String(prompt.description.prefix { $0 != "?" }) + "?"
        for columns in 40...120 {
            for rows in 12...40 {
                let text = layout(driver.state, Size(columns: columns, rows: rows)).plainText
                #expect(text.contains(question) && text.contains("Enter to confirm, Esc to cancel"), "\(columns)x\(rows):\n\(text)")
            }
        }
    }

    /// Below the minimum, the way out is always whole on the screen.
    @Test func terminalTooSmallAlwaysSaysHowToLeave() async {
        let state = await ScriptedDriver().state
        for columns in 7..<60 {
            for rows in 1..<16 where Size(columns: columns, rows: rows).isBelowMinimum {
                let text = layout(state, Size(columns: columns, rows: rows)).plainText
                #expect(text.contains("press q to quit.") || text.contains("q quits"), "\(columns)x\(rows):\n\(text)")
            }
        }
    }

    /// Each box found by its top-left corner: its sides and bottom must be border glyphs all the way round.
    static func brokenBorders(_ text: String, charset: Charset) -> [String] {
        let (topLeft, topRight, bottomLeft, bottomRight, horizontal, vertical): (Character, Character, Character, Character, Character, Character) =
            charset == .unicode ? ("╭", "╮", "╰", "╯", "─", "│") : ("+", "+", "+", "+", "-", "|")
        let grid = text.split(separator: "\n", omittingEmptySubsequences: false).map(Array.init)
        var problems: [String] = []
        for (top, line) in grid.enumerated() {
            for (left, character) in line.enumerated() where character == topLeft {
                // ASCII corners are all "+": a top-left one has "-" to its right and "|" below it.
                guard left + 1 < line.count, line[left + 1] == horizontal, top + 1 < grid.count, left < grid[top + 1].count,
                    grid[top + 1][left] == vertical
                else { continue }
                guard let right = line[(left + 1)...].firstIndex(of: topRight) else {
                    problems.append("box at \(left),\(top) has no top-right corner")
                    continue
                }
                var bottom = top + 1
                while bottom < grid.count, left < grid[bottom].count, grid[bottom][left] == vertical { bottom += 1 }
                guard bottom < grid.count, left < grid[bottom].count, grid[bottom][left] == bottomLeft else {
                    problems.append("box at \(left),\(top): its left side is broken at row \(bottom)")
                    continue
                }
                for row in (top + 1)..<bottom where right >= grid[row].count || grid[row][right] != vertical {
                    problems.append("box at \(left),\(top): its right side is broken at row \(row)")
                }
                let base = grid[bottom]
                if right >= base.count || base[right] != bottomRight || base[(left + 1)..<right].contains(where: { $0 != horizontal }) {
                    problems.append("box at \(left),\(top): its bottom border at row \(bottom) has text over it")
                }
            }
        }
        return problems
    }
}
