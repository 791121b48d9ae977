import Foundation
import MerchantReports
import ShopApplication
import ShopBootstrap
import ShopCredentialFile
import ShopIdentity
import ShopMail
import ShopModels
import ShopPorts

/// How the shop mails its shoppers, as `--mail-command`, `--mail-from`, `--mail-reply-to` and `--mail-timeout` say.
public struct MailChoice: Sendable {
    public var command: String?
    public var from: String?
    public var replyTo: String?
    public var timeout: Duration
    /// Where subscribers pay a missed renewal (`serve --web-origin`); else `STOREFRONT_WEB_ORIGIN`.
    public var webOrigin: String?

    public init(command: String?, from: String?, replyTo: String?, timeout: Duration) {
        self.command = command
        self.from = from
        self.replyTo = replyTo
        self.timeout = timeout
    }

    /// The mail command the flag or the environment names; nil when neither does.
    public func command(environment: [String: String] = ProcessInfo.processInfo.environment) -> [String]? {
        (command ?? environment["STOREFRONT_MAIL_COMMAND"]).map(SendmailTransport.parse).flatMap { $0.isEmpty ? nil : $0 }
    }

    /// Who the messages are from, under the shop's name: the flags, the environment, then the catalog's shop
    /// profile (`store.email`, `store.replyTo`); an address that is not one is a usage error (64).
    public func sender(shop: ShopProfile, environment: [String: String] = ProcessInfo.processInfo.environment) throws -> MailSender {
        let given = from ?? environment["STOREFRONT_MAIL_FROM"] ?? shop.email
        let reply = replyTo ?? environment["STOREFRONT_MAIL_REPLY_TO"] ?? shop.replyTo
        for case let (name, address?) in [("--mail-from", given), ("--mail-reply-to", reply)] {
            if let problem = Contact.emailProblem(address) {
                complain("\(name) \"\(address)\": \(problem)")
                throw ExitCodes.usage
            }
        }
        let address = given ?? "storefront@\(ProcessInfo.processInfo.hostName)"
        return MailSender(from: MailAddress(name: shop.name, address: address), replyTo: reply.map { MailAddress(address: $0) })
    }

    /// What a session needs to mail sign-in codes itself, or nil without a mail command.
    public func codeMailSettings(shop: ShopProfile, environment: [String: String] = ProcessInfo.processInfo.environment) throws
        -> CodeMailSettings?
    {
        guard let command = command(environment: environment) else { return nil }
        let sender = try sender(shop: shop, environment: environment)
        return CodeMailSettings(
            command: command, fromName: sender.from.name, fromAddress: sender.from.address, replyTo: sender.replyTo?.address,
            timeoutSeconds: Int(timeout.components.seconds))
    }

    /// The mailer of sign-in codes `settings` describe.
    public static func codeMailer(_ settings: CodeMailSettings?, shop: ShopProfile) -> CodeMailer? {
        settings.map {
            CodeMailer(
                transport: SendmailTransport(command: $0.command, deadline: .seconds($0.timeoutSeconds)),
                sender: MailSender(
                    from: MailAddress(name: $0.fromName, address: $0.fromAddress), replyTo: $0.replyTo.map { MailAddress(address: $0) }),
                shop: shop.name)
        }
    }

    /// A server's mail worker over `storage`, said in its log, or nil without a mail command: one pass at once, then one
    /// every 10 s, and a last one at `stop`.
    public func startLoop(storage: ShopStorage, environment: [String: String] = ProcessInfo.processInfo.environment) throws -> MailLoop? {
        try delivery(storage: storage, environment: environment).map { delivery in
            announce("mail: sending the shoppers' messages with \(command(environment: environment)?.joined(separator: " ") ?? "")")
            return MailLoop.start(delivery, every: .seconds(10)) { announce("mail: \($0)") }
        }
    }

    /// The delivery worker over `storage`, or nil without a mail command.
    public func delivery(
        storage: ShopStorage, environment: [String: String] = ProcessInfo.processInfo.environment, defaultCommand: [String]? = nil,
        retryAfter: Int = 30, giveUpHours: Int = 72
    ) throws -> MailDelivery? {
        guard let command = command(environment: environment) ?? defaultCommand else { return nil }
        let fault = FaultHook(environment: environment)
        var statusLink: (@Sendable (Order) -> String)?
        var linePictures: (@Sendable (Order) async -> [String?])?
        var subscriptionLink: (@Sendable (SubscriptionLinkAction, Subscription) -> String)?
        if let links = mailLinks(environment: environment) {
            statusLink = { links.orders.link(for: $0) }
            let catalog = storage.catalog
            linePictures = { order in await catalog.pictureDigests(of: order).map { $0.map(links.orders.picture) } }
            subscriptionLink = { links.subscriptions.link($0, for: $1) }
        }
        return MailDelivery(
            outbox: storage.outbox, orders: storage.orders, transport: SendmailTransport(command: command, deadline: timeout),
            shop: storage.catalog.shop, sender: try sender(shop: storage.catalog.shop, environment: environment), dates: storage.clock.dates,
            giveUpAfter: .seconds(giveUpHours * 3_600), firstBackoffSeconds: retryAfter,
            subscriptionMail: SubscriptionMailSource(
                mailbox: storage.subscriptions, store: storage.subscriptions, catalog: storage.catalog,
                manage: (webOrigin ?? environment["STOREFRONT_WEB_ORIGIN"]).flatMap { $0.isEmpty ? nil : $0 }, links: subscriptionLink),
            readTheClock: { _ = await storage.currentTime() }, statusLink: statusLink, linePictures: linePictures
        ) { fault.reached($0.rawValue) }
    }

    /// The mails' links (a receipt's status link, a reminder's skip) at the shop's web origin (`--web-origin`,
    /// `STOREFRONT_WEB_ORIGIN`), signed under the code key; nil without an origin, or a key that cannot be read (said
    /// in the log).
    func mailLinks(environment: [String: String]) -> MailLinks? {
        guard let origin = (webOrigin ?? environment["STOREFRONT_WEB_ORIGIN"]).flatMap({ $0.isEmpty ? nil : $0 }) else { return nil }
        do {
            let key = try AccountSignIn.codeKey(
                environment: environment, credentials: FileCredentialRepository(path: FileCredentialRepository.defaultPath(environment: environment)))
            return MailLinks(codeKey: key, origin: origin)
        } catch {
            announce("mail: messages carry no links to the web front: the code key cannot be read: \(error)", level: .warning)
            return nil
        }
    }
}

/// `storefront outbox` and `storefront mail-worker`: the shoppers' messages, listed, shown as sent, and sent.
public enum MailCommands {
    /// The shop's storage, and who its mail is from.
    public static func open(
        configuration: ShopConfiguration, migrate: Bool, mail: MailChoice, environment: [String: String] = ProcessInfo.processInfo.environment
    ) async throws -> (storage: ShopStorage, sender: MailSender) {
        let storage = try await ShopStorage.open(configuration: configuration, migrate: migrate, environment: environment)
        return (storage, try mail.sender(shop: storage.catalog.shop, environment: environment))
    }

    /// Every message, newest first, as a table or JSON.
    public static func list(storage: ShopStorage, json: Bool) async throws {
        let entries = try await storage.outbox.entries(limit: 1_000)
        printSafely(json ? try OutboxReport.json(entries) : OutboxReport.table(entries))
    }

    /// One message as the mail command receives it: headers as sent, the body decoded to be read; 65 for no such message.
    public static func show(id: String, storage: ShopStorage, sender: MailSender) async throws {
        guard let entry = try await storage.outbox.entry(id: id), let order = try await storage.orders.order(number: entry.orderNumber) else {
            complain("There is no message \(id).")
            throw ExitCodes.dataError
        }
        let message = OrderMail.compose(
            entry, order: order, events: try await storage.orders.events(orderNumber: order.number), shop: storage.catalog.shop, sender: sender)
        printSafely(message.rfc5322.components(separatedBy: "\n\n")[0] + "\n\n" + message.text)
    }

    /// What is wrong with `mail-worker`'s numbers, if anything: each bounded before it is scaled to seconds.
    public static func workerProblem(interval: Int, retryAfter: Int, giveUpAfter: Int) -> String? {
        if !(1...86_400).contains(interval) { return "--interval must be between 1 and 86400 seconds" }
        if !(0...3_600).contains(retryAfter) { return "--retry-after must be between 0 and 3600 seconds" }
        if !(1...8_760).contains(giveUpAfter) { return "--give-up-after must be between 1 and 8760 hours (a year)" }
        return nil
    }

    /// Sends what is due every `interval`, or once (75 when some is left for later).
    public static func work(_ delivery: MailDelivery, once: Bool, interval: Duration) async throws {
        while true {
            let pass = try await delivery.deliverDue()
            pass.sentLines.forEach(printSafely)
            pass.problemLines.forEach(complain)
            if once {
                if !pass.retried.isEmpty || !pass.gaveUp.isEmpty { throw ExitCodes.temporaryFailure }
                return
            }
            try await Task.sleep(for: interval)
        }
    }
}
