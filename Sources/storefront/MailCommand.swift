import ArgumentParser
import Foundation
import ShopMail
import ShopMerchant
import ShopModels
import ShopPorts
import StoragePostgres
import StorageSQLite
import StorefrontUI

/// Where the mail commands find the outbox and how they sign their messages.
struct MailOptions: ParsableArguments {
    @OptionGroup var shop: ShopOptions

    @Option(name: .customLong("mail-from"), help: ArgumentHelp("The address the shop's messages come from, under the shop's name. Env: STOREFRONT_MAIL_FROM. Default: storefront@HOSTNAME.", valueName: "address"))
    var from: String?

    @Option(name: .customLong("mail-reply-to"), help: ArgumentHelp("Where replies go. Env: STOREFRONT_MAIL_REPLY_TO.", valueName: "address"))
    var replyTo: String?

    /// The shop's storage (without importing a catalog on PostgreSQL), its outbox, and who its mail is from.
    func open(environment: [String: String]) async throws -> (storage: ShopStorage, outbox: any MailOutbox, sender: MailSender) {
        let configuration = try shop.configuration(environment: environment)
        let dataDirectory = configuration.dataDirectory ?? Configuration.defaultDataDirectory(environment: environment)
        let storage = try await ShopStorage.open(configuration: configuration, dataDirectory: dataDirectory, pool: .command, migrate: !shop.noMigrate, environment: environment)
        let outbox: any MailOutbox
        if let postgres = storage.postgres {
            outbox = PostgresOutbox(database: postgres)
        } else if let sqlite = storage.sqlite {
            outbox = SQLiteOutbox(database: sqlite)
        } else {
            complain("the shop's storage keeps no outbox")
            throw ExitCodes.ioError
        }
        let given = from ?? environment["STOREFRONT_MAIL_FROM"]
        let fromAddress = given ?? "storefront@\(ProcessInfo.processInfo.hostName)"
        let reply = replyTo ?? environment["STOREFRONT_MAIL_REPLY_TO"]
        for case let (name, address?) in [("--mail-from", given), ("--mail-reply-to", reply)] {
            if let problem = Contact.emailProblem(address) {
                complain("\(name) \"\(address)\": \(problem)")
                throw ExitCodes.usage
            }
        }
        let sender = MailSender(from: MailAddress(name: storage.catalog.shop.name, address: fromAddress), replyTo: reply.map { MailAddress(address: $0) })
        return (storage, outbox, sender)
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
            let (_, outbox, _) = try await mail.open(environment: ProcessInfo.processInfo.environment)
            let entries = try await outbox.entries(limit: 1_000)
            if json {
                let document: [String: Any] = ["version": 1, "messages": entries.map { entry -> [String: Any] in
                    var fields: [String: Any] = [
                        "id": entry.id, "order": entry.orderNumber, "kind": entry.kind.rawValue, "to": entry.recipient.address,
                        "messageId": entry.messageID, "createdAt": UTCTime(entry.createdAt).iso8601, "state": Self.state(entry.state),
                        "attempts": entry.attempts, "nextAttemptAt": UTCTime(entry.nextAttemptAt).iso8601,
                    ]
                    if case .sent(let at) = entry.state { fields["sentAt"] = UTCTime(at).iso8601 }
                    if let error = entry.lastError { fields["lastError"] = error }
                    return fields
                }]
                let data = try JSONSerialization.data(withJSONObject: document, options: [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes])
                print(String(decoding: data, as: UTF8.self))
                return
            }
            print(TextTable.render(
                header: ["Message", "Order", "Kind", "To", "State", "Tries", "Last error"],
                rows: entries.map { [$0.id, $0.orderNumber, $0.kind.rawValue, $0.recipient.address, Self.state($0.state), String($0.attempts), $0.lastError ?? ""] },
                rightAligned: [5]
            ))
        }

        static func state(_ state: OutboxState) -> String {
            switch state {
            case .pending: "pending"
            case .sent: "sent"
            case .failed: "failed"
            }
        }
    }

    struct Show: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Print one message as the mail command receives it.")
        @Argument(help: ArgumentHelp("The message id, such as MSG-000001.", valueName: "id"))
        var id: String
        @OptionGroup var mail: MailOptions

        func run() async throws {
            let (storage, outbox, sender) = try await mail.open(environment: ProcessInfo.processInfo.environment)
            guard let entry = try await outbox.entries(limit: 100_000).first(where: { $0.id == id }),
                  let order = try await storage.orders.order(number: entry.orderNumber)
            else {
                complain("There is no message \(id).")
                throw ExitCodes.dataError
            }
            let message = OrderMail.compose(entry, order: order, events: try await storage.orders.events(orderNumber: order.number), shop: storage.catalog.shop, sender: sender)
            // Headers as sent; the body decoded, to be read.
            print(message.rfc5322.components(separatedBy: "\n\n")[0] + "\n\n" + message.text)
        }
    }
}

/// `storefront mail-worker`: sends the outbox's due messages through the mail command, again and again.
struct MailWorker: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "mail-worker", abstract: "Send the shoppers' messages through a sendmail-compatible command, with retries."
    )

    @OptionGroup var mail: MailOptions

    @Option(name: .customLong("mail-command"), help: ArgumentHelp("The sendmail-compatible command that takes a message on stdin. Env: STOREFRONT_MAIL_COMMAND. Default: sendmail -t -i.", valueName: "command"))
    var command: String?

    @Flag(help: "Send what is due once and exit: 0 when all of it went, 75 when some is left for later.")
    var once = false

    @Option(help: ArgumentHelp("Seconds between passes (default 10).", valueName: "seconds"))
    var interval = 10

    @Option(name: .customLong("retry-after"), help: ArgumentHelp("Seconds before a message that failed is tried again, doubling each time up to an hour (default 30).", valueName: "seconds"))
    var retryAfter = 30

    @Option(name: .customLong("give-up-after"), help: ArgumentHelp("Stop trying a message this many hours after it was written (default 72).", valueName: "hours"))
    var giveUpAfter = 72

    func validate() throws {
        guard interval >= 1, giveUpAfter >= 1 else { throw ValidationError("--interval and --give-up-after must be at least 1") }
        guard (0...3_600).contains(retryAfter) else { throw ValidationError("--retry-after must be between 0 and 3600 seconds") }
    }

    func run() async throws {
        let environment = ProcessInfo.processInfo.environment
        let (storage, outbox, sender) = try await mail.open(environment: environment)
        let transport = SendmailTransport(command: SendmailTransport.parse(command ?? environment["STOREFRONT_MAIL_COMMAND"] ?? "sendmail -t -i"))
        let fault = FaultHook(environment: environment)
        let delivery = MailDelivery(
            outbox: outbox, orders: storage.orders, transport: transport, shop: storage.catalog.shop, sender: sender, dates: .system,
            giveUpAfter: .seconds(giveUpAfter * 3_600), firstBackoffSeconds: retryAfter
        ) { fault.reached($0.rawValue) }
        while true {
            let pass = try await delivery.deliverDue()
            for id in pass.sent { print("sent \(id)") }
            for (id, why) in pass.retried.sorted(by: { $0.key < $1.key }) { complain("\(id) not sent, tried again later: \(why)") }
            for (id, why) in pass.gaveUp.sorted(by: { $0.key < $1.key }) { complain("\(id) given up: \(why)") }
            if once {
                if !pass.retried.isEmpty || !pass.gaveUp.isEmpty { throw OrderChangeCommand.changedMeanwhile }
                return
            }
            try await Task.sleep(for: .seconds(interval))
        }
    }
}
