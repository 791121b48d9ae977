import ArgumentParser
import Foundation
import StorefrontUI

/// `storefront headless`: runs a key script without a terminal and prints frames as text.
struct Headless: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
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

    @OptionGroup var shop: ShopOptions

    func validate() throws {
        do { _ = try Key.script(keys) } catch { throw ValidationError("\(error)") }
    }

    @MainActor
    func run() async throws {
        let script = try Key.script(keys)
        let configuration = try shop.configuration(environment: ProcessInfo.processInfo.environment)
        let environment = ProcessInfo.processInfo.environment
        let (dependencies, _, payments) = try await ShopComposition.dependencies(
            storage: try ShopStorage.open(
                configuration: configuration,
                dataDirectory: configuration.dataDirectory ?? Configuration.defaultDataDirectory(environment: environment),
                pool: .session, migrate: !shop.noMigrate, environment: environment
            ),
            configuration: configuration, environment: environment, clock: ContinuousClock(), latency: .zero
        )
        var printed = 0
        let printsEveryFrame = frames
        let backend = HeadlessBackend(size: size, charset: ascii ? .ascii : .unicode) { _, frame in
            guard printsEveryFrame else { return }
            printed += 1
            print("--- frame \(printed) ---")
            print(frame.plainText)
        }
        let driver = Program(dependencies: dependencies, backend: backend)
        for key in script {
            await driver.press(key)
            if driver.state.isQuitting { break }
        }
        if !frames { print(driver.frame.plainText) }
        await payments.close()
    }
}
