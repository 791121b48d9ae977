import ArgumentParser
import Crypto
import Foundation
import ShopBootstrap
import ShopCredentialFile
import ShopIdentity
import ShopMerchant
import ShopModels
import ShopPorts
import ShopQRCode
import ShopSSH
import ShopSandbox
import StorageSQLite
import StorefrontCore
import StorefrontUI
import SystemPackage
import TerminalNCurses

/// The `storefront` command: the composition root, and the only place that picks live implementations.
struct Storefront: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "storefront",
        abstract: "A terminal storefront: browse, fill a cart and pay on an Apple Pay-style sheet.",
        version: "0.1.0",
        subcommands: [
            Run.self, Admin.self, Headless.self, OrdersCommand.self, OutboxCommand.self, MailWorker.self, WebhooksCommand.self, StockCommand.self,
            TokensCommand.self, APICommand.self, SSHDConfig.self, SSHDKeys.self, SSHDSession.self, CatalogCommand.self, DatabaseCommand.self,
            Serve.self, WebCommand.self,
        ],
        defaultSubcommand: Run.self
    )

    /// Parses and runs `arguments` (nil: the command line); every message ArgumentParser makes (which may quote an
    /// argument's raw escape sequences back) goes through the same sanitizer as the shop's own messages.
    static func start(_ arguments: [String]?) async {
        var arguments = arguments
        if arguments == nil {
            let given = Array(CommandLine.arguments.dropFirst())
            let executable = thisExecutable()
            switch GuestLoginShell.decide(
                argv0: CommandLine.arguments[0], arguments: given, executable: executable, isSomeonesShell: { isAccountShell(executable) })
            {
            case .notAShell: break
            case .run(let session): arguments = session
            case .refused(let why):
                complain(why)
                Foundation.exit(1)
            }
        }
        do {
            var command = try SessionWarmUp.preparedCommand(for: arguments) ?? parseAsRoot(arguments)
            if var asynchronous = command as? any AsyncParsableCommand {
                try await asynchronous.run()
            } else {
                try command.run()
            }
        } catch {
            let code = exitCode(for: error)
            let message = fullMessage(for: error)
            if !message.isEmpty { emit(message + "\n", to: code == .success ? STDOUT_FILENO : STDERR_FILENO) }
            Foundation.exit(code.rawValue)
        }
    }
}

/// Exit codes, as documented in the README (sysexits.h values where one fits).
enum ExitCodes {
    static let usage = ExitCode(64)
    static let dataError = ExitCode(65)
    static let noInput = ExitCode(66)
    static let noTerminal = ExitCode(69)
    /// EX_UNAVAILABLE as `serve` uses it: the address cannot be listened on.
    static let cannotListen = ExitCode(69)
    /// EX_UNAVAILABLE for a PostgreSQL server that does not answer.
    static let databaseUnreachable = ExitCode(69)
    static let cannotCreate = ExitCode(73)
    /// EX_OSERR: the system would not start a process (`serve` and `web` starting their session host).
    static let systemError = ExitCode(71)
    /// EX_TEMPFAIL: trying again later may work (a database locked by another process, an order changed meanwhile,
    /// a refund or a message the other side did not answer yet).
    static let temporaryFailure = ExitCode(75)
    static let ioError = ExitCode(74)
    static let configError = ExitCode(78)
}

/// This very binary, so a process it starts (an SSH session, a recorded shop) runs the same build.
/// Whether an account of this process's user id has `executable` as its login shell (the OpenSSH front's guest).
func isAccountShell(_ executable: String) -> Bool {
    let uid = getuid()
    setpwent()
    defer { endpwent() }
    while let entry = getpwent() {
        if entry.pointee.pw_uid == uid, String(cString: entry.pointee.pw_shell) == executable { return true }
    }
    return false
}

func thisExecutable() -> String {
    (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
}

/// Prints `message` to stderr prefixed with the command name.
func complain(_ message: String) {
    emit("storefront: \(message)\n", to: STDERR_FILENO)
}

/// Prints a command's output to stdout as `print` would, made safe for a terminal first: what shoppers typed (an
/// address, a name) may hold escape sequences that must never reach the merchant's terminal raw.
func printSafely(_ text: String) {
    emit(text + "\n", to: STDOUT_FILENO)
}

/// Writes a command's result on stdout; one that cannot be written (a closed pipe, a full disk) is told and exits 74.
func writeResult(_ text: String, what: String) throws {
    guard emit(text + "\n", to: STDOUT_FILENO) else {
        complain("cannot write \(what): \(String(cString: strerror(errno)))")
        throw ExitCodes.ioError
    }
}

/// Writes `text` to `descriptor` with write(2), made safe for a terminal first (`TerminalText.safeLines`).
///
/// A write that fails (a full disk, a closed pipe) never traps, unlike FileHandle.write: it returns false, with `errno`
/// saying why, for a command whose output is its result to tell.
@discardableResult
func emit(_ text: String, to descriptor: Int32) -> Bool {
    writeAll(TerminalText.safeLines(text), to: descriptor)
}

/// Options shared by every command that opens a shop. Flags win over the environment and the config file.
struct ShopOptions: ParsableArguments {
    @Option(
        name: .long, help: ArgumentHelp("A catalog JSON file to sell from instead of the bundled one. Env: STOREFRONT_CATALOG.", valueName: "path"))
    var catalog: String?

    @Option(
        name: .customLong("data-dir"),
        help: ArgumentHelp("Where the shop keeps its files. Default: $XDG_DATA_HOME/storefront. Env: STOREFRONT_DATA_DIR.", valueName: "path"))
    var dataDirectory: String?

    @Option(
        name: .customLong("one-tap"),
        help: ArgumentHelp("One-Tap Buy now: on, off, cart, product or cart,product. Env: STOREFRONT_ONE_TAP.", valueName: "setting"))
    var oneTap: String?

    @Option(help: ArgumentHelp("The payment provider: sandbox (default) or stripe. Env: STOREFRONT_PAYMENTS.", valueName: "provider"))
    var payments: PaymentsChoice?

    @Option(
        name: .customLong("stripe-secret-key-file"),
        help: ArgumentHelp(
            "A file (mode 0600, yours) holding the Stripe secret key, instead of STOREFRONT_STRIPE_SECRET_KEY. Env: STOREFRONT_STRIPE_SECRET_KEY_FILE.",
            valueName: "path"
        ))
    var stripeSecretKeyFile: String?

    @Option(
        name: .customLong("stripe-api-base"),
        help: ArgumentHelp("Stripe's API address. Default: https://api.stripe.com. Env: STOREFRONT_STRIPE_API_BASE.", valueName: "url"))
    var stripeAPIBase: String?

    @Option(
        name: .customLong("stripe-return-url"),
        help: ArgumentHelp(
            "A page of yours Stripe sends the shopper back to after its card page or a card check. Needed with Stripe unless cards are typed in the shop. Env: STOREFRONT_STRIPE_RETURN_URL.",
            valueName: "url"
        ))
    var stripeReturnURL: String?

    @Flag(
        name: .customLong("stripe-raw-card-data"),
        help: ArgumentHelp(
            "Take cards typed in the shop and send them to Stripe, instead of Stripe's card page. Only for a Stripe account granted raw card data access; it puts this host in PCI DSS scope for card data (SAQ D). Env: STOREFRONT_STRIPE_RAW_CARD_DATA=on."
        ))
    var stripeRawCardData = false

    @Option(
        help: ArgumentHelp(
            "Keep everything in PostgreSQL: postgres://USER@HOST:PORT/DB?sslmode=require. Default: SQLite in the data directory. Env: STOREFRONT_DATABASE_URL.",
            valueName: "url"
        ))
    var database: String?

    @Flag(name: .customLong("no-migrate"), help: "On PostgreSQL, do not bring the schema up to date; refuse a database that is not (exit 74).")
    var noMigrate = false

    /// The file, environment and these flags, merged.
    func configuration(environment: [String: String]) throws -> ShopConfiguration {
        var configuration = try ShopConfiguration.loadForCommand(environment: environment)
        if let payments { configuration.payments = payments }
        try configuration.apply(flags: [
            ("catalog", catalog), ("data-dir", dataDirectory), ("stripe-secret-key-file", stripeSecretKeyFile),
            ("stripe-api-base", stripeAPIBase), ("stripe-return-url", stripeReturnURL), ("database", database),
        ])
        if stripeRawCardData { configuration.stripeRawCardData = true }
        if let oneTap {
            do { try configuration.applyOneTap(oneTap) } catch {
                complain("\(error)")
                throw ExitCodes.usage
            }
        }
        return configuration
    }
}
