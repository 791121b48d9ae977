import Foundation
import StorefrontCore
import StorefrontTesting
import StorefrontUI
import Testing

@testable import TerminalNCurses

/// The mouse as keys: what a click on each kind of place in a frame stands for.
@MainActor
@Suite("The mouse", .ownThreads)
struct MouseTargetTests {
    /// The 0-based column where `text` starts on `row` of the frame.
    private func column(of text: String, row: Int, in frame: Frame) throws -> Int {
        let line = frame.plainText.split(separator: "\n", omittingEmptySubsequences: false)[row]
        let range = try #require(line.range(of: text), "\"\(text)\" is on row \(row): \(line)")
        return line.distance(from: line.startIndex, to: range.lowerBound)
    }

    @Test func aListRowSelectsThenOpensAndAFooterHintIsItsKey() async throws {
        let driver = await ScriptedDriver()
        let frame = driver.program.frame
        // Rows 2… hold the products; the first is selected.
        #expect(frame.keys(forClickAt: 10, row: 5) == [.down, .down, .down], "three rows down")
        #expect(frame.keys(forClickAt: 10, row: 2) == [.enter], "the selected row opens")
        let footer = frame.size.rows - 1
        #expect(frame.keys(forClickAt: try column(of: "c cart", row: footer, in: frame), row: footer) == [.character("c")])
        #expect(frame.keys(forClickAt: try column(of: "? help", row: footer, in: frame) + 2, row: footer) == [.character("?")])
        #expect(frame.keys(forClickAt: 40, row: 0) == [], "the header means nothing")

        driver.program.click(column: 10, row: 5)
        await driver.settle()
        #expect(driver.state.productList.selectedIndex == 3)
        driver.program.draw()
        driver.program.click(column: 10, row: 5)
        await driver.settle()
        #expect(driver.state.screen == .productDetail, "a click on the selected row opened it")
    }

    @Test func theWheelMovesAsTheArrowsDo() async {
        let driver = await ScriptedDriver()
        driver.program.wheel(down: true)
        await driver.settle()
        #expect(driver.state.productList.selectedIndex == MouseWheel.rowsPerTurn)
        driver.program.wheel(down: false)
        await driver.settle()
        #expect(driver.state.productList.selectedIndex == 0)
    }

    @Test func aCartLineOnlySelectsAndThePayButtonPays() async throws {
        let driver = await ScriptedDriver()
        try await driver.press("a,down,a,c")
        let cart = driver.program.frame
        let selectedRow = try #require(cart.plainText.split(separator: "\n").firstIndex { $0.contains("›") })
        #expect(cart.keys(forClickAt: 10, row: selectedRow) == [], "Enter on the cart is checkout, not this line")
        #expect(cart.keys(forClickAt: 10, row: selectedRow + 1) == [.down])

        try await driver.press("enter")
        let sheet = driver.program.frame
        let buttonRow = try #require(sheet.plainText.split(separator: "\n", omittingEmptySubsequences: false).firstIndex { $0.contains("[ Pay ]") })
        #expect(sheet.keys(forClickAt: try column(of: "[ Pay ]", row: buttonRow, in: sheet) + 3, row: buttonRow) == [.character("p")])
        driver.program.click(column: try column(of: "[ Pay ]", row: buttonRow, in: sheet) + 3, row: buttonRow)
        await driver.settle()
        #expect(driver.state.paymentSheet?.authorizationPrompt != nil, "the button asked to pay")
    }

    @Test func aFormFieldTakesTheFocusAndTheButtonSubmitsFromAnyField() async throws {
        let driver = await ScriptedDriver()
        try await driver.press("u,d")
        let form = driver.program.frame
        let lines = form.plainText.split(separator: "\n", omittingEmptySubsequences: false)
        let city = try #require(lines.firstIndex { $0.contains("City") })
        #expect(form.keys(forClickAt: 6, row: city) == [.down, .down, .down], "three fields below the focused one (the name)")
        let buttonRow = try #require(lines.firstIndex { $0.contains("[ Save address ]") })
        let fields = try #require(driver.state.form?.fields.count)
        #expect(
            form.keys(forClickAt: try column(of: "[ Save address ]", row: buttonRow, in: form) + 2, row: buttonRow)
                == Array(repeating: .down, count: fields - 2) + [.enter], "from the name, the second field, to the last")
    }
}

/// SGR mouse reports where terminfo names only the old encoding (tmux's and screen's entries).
@MainActor
@Suite("SGR mouse reports read by the shop", .ownThreads)
struct SGRMouseReportTests {
    private static func read(_ text: String) -> [(isKeyCode: Bool, value: UInt32)] {
        text.unicodeScalars.map { (false, $0.value) }
    }

    @Test func aReportBecomesTheClickOrWheelItStandsFor() {
        #expect(NCursesScreen.inputs(from: Self.read("\u{1B}[<0;240;6M")) == [.click(column: 239, row: 5)])
        #expect(NCursesScreen.inputs(from: Self.read("\u{1B}[<0;240;6m")).isEmpty, "a release is nothing")
        #expect(NCursesScreen.inputs(from: Self.read("\u{1B}[<65;1;1M\u{1B}[<64;1;1M")) == [.wheel(down: true), .wheel(down: false)])
        #expect(
            NCursesScreen.inputs(from: Self.read("a\u{1B}[<0;3;4Mb")) == [.key(.character("a")), .click(column: 2, row: 3), .key(.character("b"))])
    }

    /// The terminal's answers to the shop's questions (the background, DA1, kitty's graphics query): never keys (the
    /// `?` would open the help); DA1's and kitty's say what it draws.
    @Test func anAnswerFromTheTerminalIsNotReadAsKeys() {
        #expect(
            NCursesScreen.inputs(from: Self.read("\u{1B}[?64;1;2;4;6;9;15;18;21;22c"))
                == [.terminalSaid(.deviceAttributes([64, 1, 2, 4, 6, 9, 15, 18, 21, 22]))])
        #expect(
            NCursesScreen.inputs(from: Self.read("\u{1B}]11;rgb:1e1e/1e1e/1e1e\u{1B}\\\u{1B}[?1;2ca"))
                == [.terminalSaid(.deviceAttributes([1, 2])), .key(.character("a"))])
        #expect(
            NCursesScreen.inputs(from: Self.read("\u{1B}_Gi=31;OK\u{1B}\\\u{1B}[?62;22c"))
                == [.terminalSaid(.kittyGraphics(true)), .terminalSaid(.deviceAttributes([62, 22]))])
        #expect(
            NCursesScreen.inputs(from: Self.read("\u{1B}_Gi=31;EINVAL:unsupported\u{1B}\\x")) == [
                .terminalSaid(.kittyGraphics(false)), .key(.character("x")),
            ])
        #expect(NCursesScreen.inputs(from: Self.read("\u{1B}_Gi=31;OK")).count == 10, "unfinished: the keys they are")
        #expect(NCursesScreen.inputs(from: Self.read("a\u{1B}]11;rgb:ffff/ffff/ffff\u{07}b")) == [.key(.character("a")), .key(.character("b"))])
        // Not an answer: left as the keys they are.
        #expect(NCursesScreen.inputs(from: Self.read("\u{1B}[?c")).count == 4)
        #expect(NCursesScreen.inputs(from: Self.read("\u{1B}]11;rgb")).count == 8, "unfinished")
    }

    @Test func somethingElseAfterAnEscapeIsLeftAsKeys() {
        #expect(NCursesScreen.inputs(from: Self.read("\u{1B}")) == [.key(.escape)])
        #expect(
            NCursesScreen.inputs(from: Self.read("\u{1B}[<0;x;1M")) == [
                .key(.escape), .key(.character("[")), .key(.character("<")), .key(.character("0")),
                .key(.character(";")), .key(.character("x")), .key(.character(";")), .key(.character("1")), .key(.character("M")),
            ])
    }
}

/// In tmux with its own terminal type (whose entry names only the old encoding, which cannot say a column past 223),
/// the shop asks for SGR reports and reads them itself.
@Suite("The mouse in tmux", .serialized, .ownThreads)
struct MouseInTmuxTests {
    @Test func theShopAsksTmuxForSGRReportsAndReadsThem() throws {
        let terminal = try TmuxTerminal(columns: 260, rows: 30)
        let binary = try BuiltProduct.requireStorefront()
        try terminal.type("TERM=tmux-256color '\(binary)' --data-dir '\(terminal.directory.path)/data'; echo EXIT=$?")
        try terminal.waitForShop()
        #expect(try terminal.paneFlag("mouse_sgr_flag") == "1", "the shop asked tmux for SGR reports")
        // Row 6 is the fourth product; a second click on the selected row opens it. tmux passes what it is sent, as an
        // SGR-speaking terminal sends it; the shop reads its keys itself on a terminal that speaks ANSI.
        try terminal.write("\u{1B}[<0;20;6M\u{1B}[<0;20;6m")
        try terminal.waitFor("› Grid Notebook")
        // The second click in the old encoding, as a terminal without SGR reports sends it (each byte its value plus
        // 32): the shop's own decoder reads it as the same click.
        try terminal.write("\u{1B}[M 4&\u{1B}[M#4&")
        try terminal.waitFor("Product ")
        try terminal.press("q")
        try terminal.waitFor("EXIT=0")
        #expect(try terminal.paneFlag("mouse_sgr_flag") == "0", "and turned them off again")
    }
}
