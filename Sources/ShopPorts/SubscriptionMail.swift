import Foundation
import ShopModels

/// The words of the messages a subscription's events send its subscriber: a renewal that failed (with when it is tried
/// again and where to pay or change the card), and a cancel (the last failed try, or the shop's). Cards appear as the
/// subscriber saw them (brand and last four), never more.
public enum SubscriptionMail {
    /// `product` names what is delivered; `manage` is where the subscriber pays a missed renewal (passing the bank's
    /// check there) or changes the card: the shop's address, or nil where none is configured.
    public static func compose(
        _ entry: SubscriptionMailEntry, subscription: Subscription, product: String, shop: ShopProfile, sender: MailSender, manage: String?
    ) -> MailMessage {
        let event = entry.event
        let greeting = entry.recipient.name.isEmpty ? "Hello," : "Hello \(MailMessage.oneLine(entry.recipient.name)),"
        // The detail starts "period N: "; the subscriber is told the why.
        let why = event.detail.split(separator: ":", maxSplits: 1).last.map { $0.trimmingCharacters(in: .whitespaces) } ?? event.detail
        let account = "open your account (u), then your subscriptions (r)"
        let whereTo = manage.map { "Go to \($0), \(account)." } ?? "In the shop, \(account)."
        let subject: String
        var body: [String]
        switch (event.kind, event.actor) {
        case ("failed", _):
            subject = "Your \(product) subscription could not be renewed"
            // A final decline, or the bank wanting the subscriber: nothing is tried again until they act.
            let next =
                subscription.dueAt >= RenewalSchedule.waitsForSubscriber
                ? "Nothing was sent or charged, and this card is not tried again: add another card, or pay the delivery yourself."
                : "Nothing was sent or charged. We try again on \(UTCTime(subscription.dueAt).calendarDate) (UTC); after the last try the subscription ends."
            body = [
                greeting, "", "We could not charge \(subscription.cardDescription) for your next delivery of \(product):",
                "  \(MailMessage.oneLine(why))", "", next,
                "", "To pay now (your bank can check it there) or to change the card: \(whereTo)",
            ]
        case ("undeliverable", _):
            // Not the card's doing: the mail says what it was, and never that the card failed.
            subject = "Your next \(product) delivery could not be sent"
            body = [
                greeting, "", "Your next delivery of \(product) could not be sent:", "  \(MailMessage.oneLine(why))", "",
                "Nothing was sent or charged. We try again on \(UTCTime(subscription.dueAt).calendarDate) (UTC); after the last try the subscription ends.",
                "", "To change the address or the subscription, or to cancel it: \(whereTo)",
            ]
        case ("canceled", "renewals"):
            subject = "Your \(product) subscription has ended"
            let failed =
                subscription.lastFailure == nil
                ? "We could not charge \(subscription.cardDescription) for your delivery of \(product), and that was the last try:"
                : "Your delivery of \(product) could not be sent, and that was the last try:"
            body = [
                greeting, "", failed,
                "  \(MailMessage.oneLine(why))", "", "Your subscription is canceled and nothing more will be charged.",
                "To subscribe again: \(whereTo)",
            ]
        case ("price", _):
            let each = event.detail.components(separatedBy: ": ").last ?? event.detail
            subject = "The price of your \(product) subscription changes"
            body = [
                greeting, "", "From your delivery on \(UTCTime(subscription.renewsAt).calendarDate), \(product) costs \(MailMessage.oneLine(each)).",
                "Your deliveries until then keep the price you had.", "",
                "To change the interval, skip a delivery or cancel before then: \(whereTo)",
            ]
        default:
            let ending = subscription.endsAtPeriodEnd && subscription.status != .canceled
            subject = "Your \(product) subscription is canceled"
            body = [
                greeting, "",
                ending
                    ? "\(shop.name) canceled your subscription to \(product): it ends on \(UTCTime(subscription.renewsAt).calendarDate) instead of renewing."
                    : "\(shop.name) canceled your subscription to \(product).",
                "Nothing more will be charged to \(subscription.cardDescription).",
            ]
        }
        body += ["", "Questions? Reply to this message.", "", "— \(shop.name)"]
        return MailMessage(
            from: sender.from, replyTo: sender.replyTo, to: entry.recipient, subject: subject, date: event.at, messageID: entry.messageID,
            text: body.joined(separator: "\n"))
    }
}
