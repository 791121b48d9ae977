import ArgumentParser
import ShopBootstrap
import ShopCommands
import ShopPorts

/// How the shop mails its shoppers: the mail command and who the messages are from. `run`, `admin`, `serve` and
/// `mail-worker` take these.
struct MailSettings: ParsableArguments {
    @Option(setting: "mail.command", as: SettingValue.text) var command: String?
    @Option(setting: "mail.from", as: SettingValue.text) var from: String?
    @Option(setting: "mail.reply-to", as: SettingValue.text) var replyTo: String?
    @Option(defaultOf: "mail.timeout", as: SettingValue.duration) var timeout: Duration

    /// What these options choose.
    var choice: MailChoice { MailChoice(command: command, from: from, replyTo: replyTo, timeout: timeout) }
}

/// Where the mail commands find the outbox, and how they sign their messages.
struct MailOptions: ParsableArguments {
    @OptionGroup var shop: ShopOptions
    @OptionGroup var settings: MailSettings

    /// The shop's storage and who its mail is from.
    func open() async throws -> (storage: ShopStorage, sender: MailSender) {
        try await MailCommands.open(configuration: shop.configuration(), migrate: !shop.noMigrate, mail: settings.choice)
    }
}

/// `storefront outbox`: the messages the shop's changes wrote for shoppers, and how each stands.
struct OutboxCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "outbox", abstract: "List the shoppers' messages and how each stands, or show one as it is sent.",
        subcommands: [List.self, Show.self], defaultSubcommand: List.self
    )

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "list", abstract: "Every message, newest first: pending, sent or failed, with the last error.")
        @OptionGroup var mail: MailOptions
        @Flag(help: "Print JSON instead of a table.")
        var json = false

        func run() async throws {
            let (storage, _) = try await mail.open()
            try await MailCommands.list(storage: storage, json: json)
        }
    }

    struct Show: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "show", abstract: "Print one message as the mail command receives it.")
        @Argument(help: ArgumentHelp("The message id, such as MSG-000001.", valueName: "id"))
        var id: String
        @OptionGroup var mail: MailOptions

        func run() async throws {
            let (storage, sender) = try await mail.open()
            try await MailCommands.show(id: id, storage: storage, sender: sender)
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
        let problem = MailCommands.workerProblem(interval: interval, retryAfter: retryAfter, giveUpAfter: giveUpAfter)
        if let problem { throw ValidationError(problem) }
    }

    func run() async throws {
        let (storage, _) = try await mail.open()
        let delivery = try mail.settings.choice.delivery(
            storage: storage, defaultCommand: ["sendmail", "-t", "-i"], retryAfter: retryAfter, giveUpHours: giveUpAfter)
        guard let delivery else { return }
        try await MailCommands.work(delivery, once: once, interval: .seconds(interval))
    }
}
