import ArgumentParser
import Foundation
import MerchantReports
import ShopBootstrap
import ShopMail
import ShopMerchant
import ShopModels
import ShopPorts
import StoragePostgres
import StorageSQLite
import StorefrontUI

/// How the shop mails its shoppers: the mail command and who the messages are from. `run`, `admin`, `serve` and
/// `mail-worker` take these.
struct MailSettings: ParsableArguments {
    @Option(
        name: .customLong("mail-command"),
        help: ArgumentHelp(
            "A sendmail-compatible command that takes a message on stdin, such as \"sendmail -t -i\" or \"msmtp -t\". Env: STOREFRONT_MAIL_COMMAND. Without one, messages wait in the outbox (mail-worker defaults to sendmail -t -i).",
            valueName: "command"))
    var command: String?

    @Option(
        name: .customLong("mail-from"),
        help: ArgumentHelp(
            "The address the shop's messages come from, under the shop's name. Env: STOREFRONT_MAIL_FROM. Default: storefront@HOSTNAME.",
            valueName: "address"))
    var from: String?

    @Option(name: .customLong("mail-reply-to"), help: ArgumentHelp("Where replies go. Env: STOREFRONT_MAIL_REPLY_TO.", valueName: "address"))
    var replyTo: String?

    @Option(
        name: .customLong("mail-timeout"),
        help: ArgumentHelp(
            "How long the mail command may take for one message before it is killed and the message tried again later (default: 60s).",
            valueName: "duration"), transform: Arguments.duration("--mail-timeout", examples: "30s or 2m"))
    var timeout = Duration.seconds(60)

    /// The mail command the flag or the environment names; nil when neither does.
    func command(environment: [String: String]) -> [String]? {
        (command ?? environment["STOREFRONT_MAIL_COMMAND"]).map(SendmailTransport.parse).flatMap { $0.isEmpty ? nil : $0 }
    }

    /// Who the messages are from, under the shop's name: the flags, the environment, then the catalog's shop
    /// profile (`store.email`, `store.replyTo`); an address that is not one is a usage error (64).
    func sender(shop: ShopProfile, environment: [String: String]) throws -> MailSender {
        let shopName = shop.name
        let given = from ?? environment["STOREFRONT_MAIL_FROM"] ?? shop.email
        let reply = replyTo ?? environment["STOREFRONT_MAIL_REPLY_TO"] ?? shop.replyTo
        for case let (name, address?) in [("--mail-from", given), ("--mail-reply-to", reply)] {
            if let problem = Contact.emailProblem(address) {
                complain("\(name) \"\(address)\": \(problem)")
                throw ExitCodes.usage
            }
        }
        let address = given ?? "storefront@\(ProcessInfo.processInfo.hostName)"
        return MailSender(from: MailAddress(name: shopName, address: address), replyTo: reply.map { MailAddress(address: $0) })
    }

    /// A server's mail worker over `storage`, said in its log, or nil without a mail command: one pass at once, then one
    /// every 10 s, and a last one at `stop`.
    func startLoop(storage: ShopStorage, environment: [String: String]) throws -> MailLoop? {
        try delivery(storage: storage, environment: environment).map { delivery in
            announce("mail: sending the shoppers' messages with \(command(environment: environment)?.joined(separator: " ") ?? "")")
            return MailLoop.start(delivery, every: .seconds(10)) { announce("mail: \($0)") }
        }
    }

    /// The delivery worker over `storage`, or nil without a mail command.
    func delivery(storage: ShopStorage, environment: [String: String], defaultCommand: [String]? = nil, retryAfter: Int = 30, giveUpHours: Int = 72)
        throws -> MailDelivery?
    {
        guard let command = command(environment: environment) ?? defaultCommand else { return nil }
        let fault = FaultHook(environment: environment)
        return MailDelivery(
            outbox: storage.outbox, orders: storage.orders, transport: SendmailTransport(command: command, deadline: timeout),
            shop: storage.catalog.shop,
            sender: try sender(shop: storage.catalog.shop, environment: environment), dates: .system,
            giveUpAfter: .seconds(giveUpHours * 3_600), firstBackoffSeconds: retryAfter
        ) { fault.reached($0.rawValue) }
    }
}

/// Where the mail commands find the outbox, and how they sign their messages.
struct MailOptions: ParsableArguments {
    @OptionGroup var shop: ShopOptions
    @OptionGroup var settings: MailSettings

    /// The shop's storage and who its mail is from.
    func open(environment: [String: String]) async throws -> (storage: ShopStorage, sender: MailSender) {
        let configuration = try shop.configuration(environment: environment)
        let dataDirectory = configuration.dataDirectory(environment: environment)
        let storage = try await ShopStorage.open(
            configuration: configuration, dataDirectory: dataDirectory, pool: .command, migrate: !shop.noMigrate, environment: environment)
        return (storage, try settings.sender(shop: storage.catalog.shop, environment: environment))
    }
}

/// `storefront outbox`: the messages the shop's changes wrote for shoppers, and how each stands.
struct OutboxCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "outbox", abstract: "List the shoppers' messages and how each stands, or show one as it is sent.",
        subcommands: [List.self, Show.self], defaultSubcommand: List.self
    )

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Every message, newest first: pending, sent or failed, with the last error.")
        @OptionGroup var mail: MailOptions
        @Flag(help: "Print JSON instead of a table.")
        var json = false

        func run() async throws {
            let (storage, _) = try await mail.open(environment: ProcessInfo.processInfo.environment)
            let entries = try await storage.outbox.entries(limit: 1_000)
            printSafely(json ? try OutboxReport.json(entries) : OutboxReport.table(entries))
        }
    }

    struct Show: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Print one message as the mail command receives it.")
        @Argument(help: ArgumentHelp("The message id, such as MSG-000001.", valueName: "id"))
        var id: String
        @OptionGroup var mail: MailOptions

        func run() async throws {
            let (storage, sender) = try await mail.open(environment: ProcessInfo.processInfo.environment)
            guard let entry = try await storage.outbox.entry(id: id),
                let order = try await storage.orders.order(number: entry.orderNumber)
            else {
                complain("There is no message \(id).")
                throw ExitCodes.dataError
            }
            let message = OrderMail.compose(
                entry, order: order, events: try await storage.orders.events(orderNumber: order.number), shop: storage.catalog.shop, sender: sender)
            // Headers as sent; the body decoded, to be read.
            printSafely(message.rfc5322.components(separatedBy: "\n\n")[0] + "\n\n" + message.text)
        }
    }
}

/// `storefront mail-worker`: sends the outbox's due messages through the mail command, again and again.
struct MailWorker: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "mail-worker", abstract: "Send the shoppers' messages through a sendmail-compatible command, with retries."
    )

    @OptionGroup var mail: MailOptions

    @Flag(help: "Send what is due once and exit: 0 when all of it went, 75 when some is left for later.")
    var once = false

    @Option(help: ArgumentHelp("Seconds between passes (default 10).", valueName: "seconds"))
    var interval = 10

    @Option(
        name: .customLong("retry-after"),
        help: ArgumentHelp(
            "Seconds before a message that failed is tried again, doubling each time up to an hour (default 30).", valueName: "seconds"))
    var retryAfter = 30

    @Option(
        name: .customLong("give-up-after"),
        help: ArgumentHelp("Stop trying a message this many hours after it was written (default 72).", valueName: "hours"))
    var giveUpAfter = 72

    func validate() throws {
        guard interval >= 1, giveUpAfter >= 1 else { throw ValidationError("--interval and --give-up-after must be at least 1") }
        guard (0...3_600).contains(retryAfter) else { throw ValidationError("--retry-after must be between 0 and 3600 seconds") }
    }

    func run() async throws {
        let environment = ProcessInfo.processInfo.environment
        let (storage, _) = try await mail.open(environment: environment)
        guard
            let delivery = try mail.settings.delivery(
                storage: storage, environment: environment, defaultCommand: ["sendmail", "-t", "-i"], retryAfter: retryAfter, giveUpHours: giveUpAfter
            )
        else { return }
        while true {
            let pass = try await delivery.deliverDue()
            pass.sentLines.forEach(printSafely)
            pass.problemLines.forEach(complain)
            if once {
                if !pass.retried.isEmpty || !pass.gaveUp.isEmpty { throw ExitCodes.temporaryFailure }
                return
            }
            try await Task.sleep(for: .seconds(interval))
        }
    }
}
