import ShopModels
import ShopPorts
import StorefrontCore
import StorefrontTesting
import StorefrontUI
import Testing

@MainActor
@Suite("Layout")
struct LayoutTests {
    private func catalog(named name: String, summary: String = "Safe.") -> InMemoryCatalog {
        InMemoryCatalog(
            catalog: Catalog(
                shop: .standard(),
                products: [
                    Product(
                        id: "evil", name: name, summary: summary, description: "Desc \u{1B}]0;pwned\u{07} end",
                        price: Money(minorUnits: 100, currency: .usd))
                ]))
    }

    @Test func escapeSequencesFromDataNeverReachTheFrame() async throws {
        let driver = await ScriptedDriver(
            stack: TestStack(catalog: catalog(named: "Lamp\u{1B}[2J\u{1B}[31mRED", summary: "bell\u{07}")), size: Size(columns: 120, rows: 30))
        try await driver.press("enter")
        for frame in driver.renderer.frames + [driver.program.frame] {
            for cell in frame.cells {
                #expect(!cell.text.unicodeScalars.contains { $0.isUnsafeForTerminal })
            }
        }
        #expect(driver.frameText.contains("Lamp\u{FFFD}\u{FFFD}RED"))
        #expect(!driver.frameText.contains("pwned"))
    }

    @Test func aFailureTooLongForOneLineWrapsAboveThePayButton() async throws {
        let driver = await ScriptedDriver()
        // The seventh wallet card is the processing-error card, whose message is longer than the room beside [ Pay ].
        try await driver.press("enter,a,c,enter,enter,down,down,down,down,down,down,enter,p,enter")
        let text = driver.frameText
        #expect(text.contains("An error occurred while processing your card. Try again in a"), "\(text)")
        #expect(text.contains("little bit.") && text.contains("[ Pay ]"), "the rest of the message, beside the button: \(text)")
        #expect(!text.contains("…"), "nothing is cut off")
    }

    @Test func asciiFallbackHasOnlyASCII() async throws {
        let driver = await ScriptedDriver(size: Size(columns: 80, rows: 24), charset: .ascii)
        try await driver.press("a,c,enter")
        let text = driver.frameText
        #expect(text.unicodeScalars.allSatisfy { $0.isASCII })
        #expect(text.contains("+- Pay with Storefront"))
    }

    @Test func wideCharactersTakeTwoColumns() {
        var frame = Frame(size: Size(columns: 10, rows: 1))
        let used = frame.put("東京ab", column: 0, row: 0)
        #expect(used == 6)
        #expect(frame[0, 0].text == "東")
        #expect(frame[1, 0].isContinuation)
        #expect(frame.lines[0] == "東京ab    ")
        // A wide character that does not fit is not split.
        var narrow = Frame(size: Size(columns: 3, rows: 1))
        narrow.put("a東京", column: 0, row: 0)
        #expect(narrow.lines[0] == "a東")
        narrow.put("x", column: 2, row: 0)
        #expect(narrow.lines[0] == "a x")
    }

    @Test(
        "every frame is exactly the terminal size",
        arguments: [
            Size(columns: 40, rows: 12), Size(columns: 80, rows: 24), Size(columns: 200, rows: 60), Size(columns: 300, rows: 100),
            Size(columns: 39, rows: 11), Size(columns: 1, rows: 1),
        ])
    func frameMatchesSize(size: Size) async throws {
        let driver = await ScriptedDriver(size: size)
        try await driver.press("enter,a,c,enter")
        let frame = driver.program.frame
        #expect(frame.lines.count == size.rows)
        #expect(frame.lines.allSatisfy { TerminalText.width(of: $0) == size.columns })
    }

    @Test func tooSmallSaysWhatIsNeeded() async {
        let driver = await ScriptedDriver(size: Size(columns: 39, rows: 11))
        #expect(driver.frameText.contains("Terminal too small"))
        #expect(driver.frameText.contains("Need 40x12, have 39x11."))
    }

    @Test func resizeFollowsTheNewSize() async throws {
        let driver = await ScriptedDriver(size: Size(columns: 80, rows: 24))
        await driver.resize(to: Size(columns: 50, rows: 15))
        #expect(driver.renderer.frames.last?.size == Size(columns: 50, rows: 15))
        #expect(driver.state.productList.rows.count == Layout.listRows(for: Size(columns: 50, rows: 15)))
        await driver.resize(to: Size(columns: 100, rows: 30))
        #expect(driver.state.productList.rows.count == min(24, Layout.listRows(for: Size(columns: 100, rows: 30))))
        #expect(driver.program.frame.size == Size(columns: 100, rows: 30))
    }

    @Test func layoutIsPure() async throws {
        let driver = await ScriptedDriver()
        try await driver.press("down,a,c")
        let state = driver.state
        #expect(layout(state, Size(columns: 80, rows: 24)) == layout(state, Size(columns: 80, rows: 24)))
    }
}

@MainActor
@Suite("Keys")
struct KeyTests {
    @Test func scriptNames() throws {
        #expect(
            try Key.script("up,down,enter,esc,pgup,pgdn,home,end,space,tab,backspace,a,/,comma") == [
                .up, .down, .enter, .escape, .pageUp, .pageDown, .home, .end, .character(" "), .tab, .backspace,
                .character("a"), .character("/"), .character(","),
            ])
        #expect(try Key.script("") == [])
    }

    @Test func namesAreTrimmedOfSpacesAndTabsButNotOfNewlines() throws {
        #expect(try Key.script(" enter ,\ta\t,\u{00A0}down\u{3000}") == [.enter, .character("a"), .down])
        #expect(throws: KeyScriptError(position: 1, name: "enter\n")) { try Key.script("enter\n") }
    }

    @Test func unknownKeyNameIsAClearError() {
        #expect(throws: KeyScriptError(position: 2, name: "jump")) { try Key.script("enter,jump") }
        let message = KeyScriptError(position: 2, name: "jump").description
        #expect(message.hasPrefix("unknown key \"jump\" at position 2; use"))
    }

    @Test func footerHintsComeFromTheKeyTable() async {
        let driver = await ScriptedDriver()
        let footer = driver.frameText.split(separator: "\n").last.map(String.init) ?? ""
        for binding in KeyBindings.footer(for: driver.state) {
            #expect(footer.contains("\(binding.label) \(binding.summary)"))
        }
        #expect(footer.contains("q quit"))
    }

    /// With a wallet One-Tap is ready and Buy now applies; without one it does not, and the account has no row to act on.
    @Test(arguments: [true, false])
    func aKeyMeansTheFirstBindingOfTheTableThatAppliesOnEveryScreen(withWallet: Bool) async throws {
        let driver = await ScriptedDriver(stack: withWallet ? TestStack() : TestStack(guestWallet: WalletContents()))
        let keys = Set(KeyBindings.table.flatMap(\.keys)).union([.character("z"), .character("é"), .left, .right])
        // The product list, search, a product, help over it, the cart with a line, its help, orders, the account.
        for script in ["", "/", "esc,enter", "?", "esc,a,c", "?", "esc,o", "u"] {
            try await driver.press(script)
            let state = driver.state
            let context = KeyContext(state)
            for key in keys {
                let scanned = KeyBindings.table.first { $0.contexts.contains(context) && $0.keys.contains(key) && $0.appliesWhen(state) }?.action
                let typed: Action? =
                    if case .character(let c) = key, [KeyContext.search, .form].contains(context) { .textInput(String(c)) } else { nil }
                #expect(KeyBindings.action(for: key, in: state) == scanned ?? typed, "\(key) in \(context)")
            }
            let footer = KeyBindings.table.filter { $0.inFooter && $0.contexts.contains(context) && $0.appliesWhen(state) }.map(\.summary)
            #expect(KeyBindings.footer(for: state).map(\.summary) == footer, "footer in \(context)")
        }
    }

    @Test func everyDocumentedKeyDoesSomethingSomewhere() {
        let documented: [Key] = [
            .up, .down, .character("k"), .character("j"), .pageUp, .pageDown, .home, .end, .enter, .escape,
            .character("a"), .character("c"), .character("s"), .character("o"), .character("/"), .character("+"),
            .character("-"), .character("x"), .character("p"), .character("b"), .character("?"), .character("q"),
        ]
        for key in documented {
            #expect(KeyBindings.table.contains { $0.keys.contains(key) }, "\(key) is in the key table")
        }
    }
}
