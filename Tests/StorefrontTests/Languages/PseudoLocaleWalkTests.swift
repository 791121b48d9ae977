import ShopLanguages
import ShopModels
import StorefrontCore
import StorefrontTesting
import StorefrontUI
import Testing

/// Every shopper's screen in the test language (en-XA: every catalog word longer, accented and bracketed), at three
/// sizes: a word outside the catalog shows as plain English, a layout that cuts or overruns shows its cut.
@MainActor
@Suite("The test language")
struct PseudoLocaleWalkTests {
    /// The shopper's screens, by the keys that reach them from the product list.
    nonisolated static let screens: [(name: String, keys: String)] =
        SnapshotTests.screens + [
            ("account", "u"),
            ("address-form", "u,d"),
            ("card-form", "u,n"),
            ("token-form", "u,t"),
            ("sign-in", "u,i"),
            ("subscriptions", "u,r"),
            ("product-options", "j,j,j,j,j,j,j,j,j,enter,right,down,right"),
            ("sheet-germany", "a,c,enter,down,enter,down,down,down,down,enter"),
            ("orders-empty", "o"),
            ("language-notice", "L"),
        ]

    nonisolated static let sizes = [Size(columns: 80, rows: 24), Size(columns: 120, rows: 34), Size(columns: 200, rows: 60)]

    @Test("every screen in en-XA at 80x24, 120x34 and 200x60", arguments: screens.map(\.name), sizes)
    func screen(name: String, size: Size) async throws {
        let keys = Self.screens.first { $0.name == name }!.keys
        var stack = TestStack()
        stack.language = .pseudo
        let pseudo = await ScriptedDriver(stack: stack, size: size)
        try await pseudo.press(keys)
        let english = await ScriptedDriver(size: size)
        try await english.press(keys)
        // The language key steps on from the test language to English; the rest stay in it.
        guard name != "language-notice" else {
            #expect(pseudo.state.language == .english)
            return
        }
        #expect(pseudo.state.screen == english.state.screen, "the same keys reach the same screen")
        let problems = PseudoLocaleCheck.problems(
            frame: pseudo.frameText, english: english.frameText, data: PseudoLocaleCheck.dataWords(in: pseudo.state))
        #expect(problems.isEmpty, "\(name) at \(size):\n\(problems.joined(separator: "\n"))\n\(pseudo.frameText)")
    }

    @Test func theCheckFindsAWordOutsideTheCatalogACutAndAnOverrunBorder() {
        let english = ["┌────────┐", "│ Total  │", "└────────┘"].joined(separator: "\n")
        let untranslated = ["┌────────┐", "│ Total  │", "└────────┘"].joined(separator: "\n")
        #expect(PseudoLocaleCheck.problems(frame: untranslated, english: english, data: []) == ["row 2: \"Total\" is not in the catalog"])
        let overrun = ["┌────────┐", "│ [Ţöţàĺ ~~~]", "└────────┘"].joined(separator: "\n")
        #expect(PseudoLocaleCheck.problems(frame: overrun, english: english, data: []) == ["row 2, column 10: a border is covered by \"~\""])
        let cutData = "│ Tote bag for groc… │"
        #expect(PseudoLocaleCheck.problems(frame: cutData, english: cutData, data: ["Tote", "bag", "for", "groceries"]) == [])
        let cut = ["┌────────┐", "│ [Ţöţàĺ │", "└────────┘"].joined(separator: "\n")
        #expect(PseudoLocaleCheck.problems(frame: cut, english: english, data: []) == ["row 2: \"[Ţöţàĺ\" is cut without an ellipsis"])
        let shortened = ["┌────────┐", "│ [Ţöţà… │", "└────────┘"].joined(separator: "\n")
        #expect(PseudoLocaleCheck.problems(frame: shortened, english: english, data: []) == [])
        let wrapped = ["[Ţĥàñķ ýöû", "šö ɱûçĥ ~~]", ""].joined(separator: "\n")
        #expect(PseudoLocaleCheck.problems(frame: wrapped, english: wrapped, data: ["Jane"]) == [])
        let data = "[Ŝĥîþ ţö Jane Doe ~~]"
        #expect(PseudoLocaleCheck.problems(frame: data, english: data, data: ["Jane", "Doe"]) == [])
    }
}

/// What the test language shows that it should not: words outside the catalog, text over a border, and text cut
/// without an ellipsis.
enum PseudoLocaleCheck {
    /// The sides and corners of boxes; a box's top may hold its title, which is cut where it must.
    static let borders: Set<Character> = ["│", "┌", "┐", "└", "┘", "├", "┤", "┼", "║", "╭", "╮", "╯", "╰"]

    static func problems(frame: String, english: String, data: Set<String>) -> [String] {
        let rows = frame.split(separator: "\n", omittingEmptySubsequences: false).map { Array($0) }
        let englishRows = english.split(separator: "\n", omittingEmptySubsequences: false).map { Array($0) }
        var problems: [String] = []
        for (index, row) in rows.enumerated() {
            let text = String(row)
            for word in text.matches(of: /[A-Za-z]{2,}/) where !data.contains(String(word.output)) {
                // Data cut to fit ends in an ellipsis: "togethe…" is "together".
                let cut = text[word.range.upperBound...].hasPrefix("…") && data.contains { $0.hasPrefix(word.output) }
                if !cut { problems.append("row \(index + 1): \"\(word.output)\" is not in the catalog") }
            }
            // A border drawn in English is still there: no longer text ran over it.
            if index < englishRows.count {
                for (column, character) in englishRows[index].enumerated() where borders.contains(character) {
                    let shown = column < row.count ? row[column] : " "
                    // A box the longer words made larger or smaller moves its sides: only text over a side is wrong.
                    if shown != character, !borders.contains(shown), shown != " " {
                        problems.append("row \(index + 1), column \(column + 1): a border is covered by \"\(shown)\"")
                    }
                }
            }
            problems += cuts(in: rows, at: index)
        }
        return problems
    }

    /// A bracketed text opened on row `index` that neither closes there nor ends in an ellipsis must go on below, as
    /// a wrapped paragraph does: starting at the same column, closing within a few rows.
    static func cuts(in rows: [[Character]], at index: Int) -> [String] {
        let row = rows[index]
        var problems: [String] = []
        var column = 0
        while column < row.count {
            guard row[column] == "[", column + 1 < row.count, isPseudoLetter(row[column + 1]) else {
                column += 1
                continue
            }
            let rest = row[(column + 1)...]
            if let close = rest.firstIndex(of: "]") {
                column = close + 1
                continue
            }
            let ends = rest.prefix { !borders.contains($0) }
            if ends.contains("…") { break }
            let goesOn = (index + 1..<min(rows.count, index + 8)).contains { below in
                rows[below].count > column && !rows[below][column].isWhitespace && rows[below].dropFirst(column).contains("]")
            }
            if !goesOn {
                let text = String(row[column...]).prefix { !borders.contains($0) }.trimmingCharacters(in: .whitespaces)
                problems.append("row \(index + 1): \"\(text)\" is cut without an ellipsis")
            }
            break
        }
        return problems
    }

    static func isPseudoLetter(_ character: Character) -> Bool {
        !character.isASCII && character.isLetter
    }

    /// Every word of the data a state holds (names, addresses, cards, emails), which no catalog translates.
    static func dataWords(in state: StorefrontState) -> Set<String> {
        var words = Set<String>()
        func add(_ text: String) { words.formUnion(text.matches(of: /[A-Za-z]{2,}/).map { String($0.output) }) }
        func walk(_ value: Any, depth: Int) {
            guard depth < 24 else { return }
            if let words = value as? Localized {
                for argument in words.arguments {
                    switch argument {
                    case .text(let text): add(text)
                    case .words(let inner): walk(inner, depth: depth + 1)
                    case .number, .day: break
                    case .money(_, let currency, _, _): add(currency)
                    }
                }
                if !words.isTranslated { add(words.key) }
                return
            }
            if let text = value as? String { return add(text) }
            if let text = value as? Substring { return add(String(text)) }
            for child in Mirror(reflecting: value).children { walk(child.value, depth: depth + 1) }
        }
        walk(state, depth: 0)
        // A date's zone, which every language writes as it is.
        words.insert("UTC")
        return words
    }
}
