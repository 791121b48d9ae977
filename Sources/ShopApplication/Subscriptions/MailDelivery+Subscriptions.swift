import Foundation
import ShopModels
import ShopPorts

/// Where the subscriptions' messages come from: their mailbox and store, the catalog that names what they deliver, and
/// the shop's address the messages send subscribers to.
public struct SubscriptionMailSource: Sendable {
    public var mailbox: any SubscriptionMailbox
    public var store: any SubscriptionRepository
    public var catalog: any CatalogRepository
    /// Where a subscriber pays a missed renewal or changes the card (`STOREFRONT_WEB_ORIGIN`); nil says "in the shop".
    public var manage: String?
    /// A reminder's signed link for an action on a subscription (nil without a web origin or code key).
    public var links: (@Sendable (SubscriptionLinkAction, Subscription) -> String)?

    public init(
        mailbox: any SubscriptionMailbox, store: any SubscriptionRepository, catalog: any CatalogRepository, manage: String?,
        links: (@Sendable (SubscriptionLinkAction, Subscription) -> String)? = nil
    ) {
        self.links = links
        self.mailbox = mailbox
        self.store = store
        self.catalog = catalog
        self.manage = manage
    }
}

extension MailDelivery {
    /// Sends the subscriptions' due messages, each composed from its event and the subscription as it is now, with
    /// the same retries as the orders' messages. Pass ids are `<subscription>#<event>`.
    func deliverDue(_ source: SubscriptionMailSource, limit: Int, into pass: inout Pass) async throws {
        for entry in try await source.mailbox.dueMail(at: dates.now(), limit: limit) {
            let id = "\(entry.subscriptionID)#\(entry.sequence)"
            let failure: String
            do {
                guard let subscription = try await source.store.subscription(id: entry.subscriptionID) else {
                    throw MailTransportError("subscription \(entry.subscriptionID) is gone")
                }
                // A reminder the mail worker comes to after its renewal (it was down) would name a date gone by: given up.
                if entry.event.kind == "reminder", subscription.remindedPeriod != subscription.period || subscription.dueAt <= dates.now() {
                    try await source.mailbox.recordMail(
                        .gaveUp(error: "out of date: the renewal it reminds of has come"), subscription: entry.subscriptionID,
                        sequence: entry.sequence,
                        at: dates.now())
                    pass.gaveUp[id] = "out of date: the renewal it reminds of has come"
                    continue
                }
                let product = try await source.catalog.product(id: subscription.productID)
                let name = product.map { product in
                    subscription.offer(in: product)?.variant.map { CartLine.name(product.name, $0.title) } ?? product.name
                }
                let message = SubscriptionMail.compose(
                    entry, subscription: subscription, product: name ?? subscription.productID.rawValue, shop: shop, sender: sender,
                    manage: source.manage, links: source.links.map { make in { make($0, subscription) } })
                try await transport.send(message)
                reached(.afterSending)
                try await source.mailbox.recordMail(.sent, subscription: entry.subscriptionID, sequence: entry.sequence, at: dates.now())
                pass.sent.append(id)
                continue
            } catch let error as MailTransportError {
                failure = error.description
            } catch {
                failure = "\(error)"
            }
            try await failed(id, failure, createdAt: entry.event.at, attempts: entry.attempts, into: &pass) { attempt, now in
                try await source.mailbox.recordMail(attempt, subscription: entry.subscriptionID, sequence: entry.sequence, at: now)
            }
        }
    }
}
