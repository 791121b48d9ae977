import ArgumentParser
import Foundation
import ShopCommands
import ShopRecording
import StorefrontCore
import StorefrontUI
import SystemPackage
import TerminalNCurses

/// `storefront headless`: runs a key script without a terminal and prints frames as text.
struct Headless: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "headless",
        abstract: "Run a key script without a terminal and print the final frame as text.",
        discussion: """
            Key names: up, down, left, right, enter, esc, tab, backspace, pgup, pgdn, home, end, space,
            comma, or any single character. Frames are printed once every effect has settled.
            """
    )

    @Option(help: ArgumentHelp("Terminal size as COLUMNSxROWS (default: 80x24).", valueName: "size"), transform: Arguments.size)
    var size = Size(columns: 80, rows: 24)

    @Option(help: ArgumentHelp("Comma-separated keys, e.g. \"enter,a,c,enter,p,enter\".", valueName: "keys"))
    var keys: String = ""

    @Flag(help: "Print every frame, not only the last.")
    var frames = false

    @Flag(help: "Draw with ASCII only, as on a terminal whose locale is not UTF-8.")
    var ascii = false

    @Flag(help: "Run the merchant console (storefront admin) instead of the shop.")
    var admin = false

    @Option(
        help: ArgumentHelp(
            "Write the session as an asciicast v2 file (asciinema plays it): the shop runs in a pty, so the file holds what a terminal receives.",
            valueName: "file.cast"))
    var cast: FilePath?

    @Flag(help: "With --cast: replace the file if it exists.")
    var force = false

    @Option(
        help: ArgumentHelp("With --cast: dark (default), light or mono; the file is the same on every terminal it is played on.", valueName: "theme"))
    var theme: ThemePreference = .dark

    @Option(
        help: ArgumentHelp("With --cast: the time between keys, e.g. 400ms or 1s (default 400ms).", valueName: "duration"), transform: Arguments.pace)
    var pace = Duration.milliseconds(400)

    @OptionGroup var shop: ShopOptions

    func validate() throws {
        do {
            // A recording can click and turn the wheel too: it has a terminal to send them to.
            if cast != nil { _ = try CastRecording.steps(keys) } else { _ = try Key.script(keys) }
        } catch {
            throw ValidationError("\(error)")
        }
    }

    @MainActor
    func run() async throws {
        let configuration = try shop.configuration(environment: ProcessInfo.processInfo.environment)
        let drawing = HeadlessShop.Drawing(size: size, ascii: ascii, everyFrame: frames)
        if let cast {
            return try HeadlessShop.recordCast(
                try CastRecording.steps(keys), to: cast, force: force, theme: theme, pace: pace, drawing: drawing, configuration: configuration,
                migrate: !shop.noMigrate)
        }
        let console: Console = admin ? .merchant(name: TerminalShop.merchantName(environment: ProcessInfo.processInfo.environment)) : .shop
        try await HeadlessShop.run(try Key.script(keys), console: console, drawing: drawing, configuration: configuration, migrate: !shop.noMigrate)
    }
}
