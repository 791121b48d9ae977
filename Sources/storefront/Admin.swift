import ArgumentParser
import Foundation
import Logging
import ShopModels
import ShopPorts
import ShopSSH
import ShopSessions
import StorefrontCore
import SystemPackage
import TerminalNCurses

/// `storefront admin`: the merchant console in this terminal, on the shop's database and payments.
struct Admin: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "admin",
        abstract: "Open the merchant console: ship, refund and cancel orders, count stock, see sales.",
        discussion: """
            Keys: 1 orders, 2 stock, 3 sales; in the orders Tab changes the status shown and Enter opens one; on an \
            order s ships, d marks delivered, r refunds, x cancels, each confirmed with Enter. Changes are recorded \
            as made by your user name (or, over SSH with --admin-keys, by your key's fingerprint).
            """
    )

    @OptionGroup var shop: ShopOptions

    @OptionGroup var terminal: TerminalOptions

    @OptionGroup var mail: MailSettings

    @MainActor
    func run() async throws {
        // Parsed from nothing, so every option of `run` holds its default; then this command's are put in.
        var run = try Run.parse([])
        run.shop = shop
        run.terminal = terminal
        run.mail = mail
        try await run.open(console: .merchant(name: Self.merchantName(environment: ProcessInfo.processInfo.environment)))
    }

    /// Who the console's changes are recorded as made by: the SSH key `serve --admin-keys` let in, or the local user
    /// (the same name the `orders` commands record).
    static func merchantName(environment: [String: String]) -> String {
        if let fingerprint = environment[SessionCommand.fingerprintVariable], SSHPublicKeyIdentity.isFingerprint(fingerprint) {
            return "ssh:\(fingerprint)"
        }
        return NSUserName()
    }
}
