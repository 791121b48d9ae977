import Foundation
import ShopLanguages
import ShopModels

/// The words of the messages a subscription's events send its subscriber: a renewal that failed (with when it is tried
/// again and where to pay or change the card), and a cancel (the last failed try, or the shop's). Cards appear as the
/// subscriber saw them (brand and last four), never more.
public enum SubscriptionMail {
    /// `product` names what is delivered; `manage` is where the subscriber pays a missed renewal (passing the bank's
    /// check there) or changes the card: the shop's address, or nil where none is configured. `links` makes a
    /// reminder's signed links (nil where the shop has no web origin: the reminder says where in the shop instead).
    public static func compose(
        _ entry: SubscriptionMailEntry, subscription: Subscription, product: String, shop: ShopProfile, sender: MailSender, manage: String?,
        links: ((SubscriptionLinkAction) -> String)? = nil
    ) -> MailMessage {
        let event = entry.event
        let words = MailWords(locale: subscription.language)
        // The detail starts "period N: "; the subscriber is told the why.
        let why = event.detail.split(separator: ":", maxSplits: 1).last.map { $0.trimmingCharacters(in: .whitespaces) } ?? event.detail
        let whereTo = words(
            manage.map { Localized("Go to \($0), open your account (u), then your subscriptions (r).") }
                ?? Localized("In the shop, open your account (u), then your subscriptions (r)."))
        let card = subscription.cardDescription
        let retry = Localized(
            "Nothing was sent or charged. We try again on \(day: subscription.dueAt) (UTC); after the last try the subscription ends.")
        let subject: Localized
        var body: [String] = [words.greeting(entry.recipient.name), ""]
        var buttons: [(label: String, link: String)] = []
        var html: (lines: [String], after: [String])?
        var unsubscribe: String?
        switch (event.kind, event.actor) {
        case ("reminder", _):
            let reminder = Reminder(subscription: subscription, product: product, words: words, whereTo: whereTo, links: links)
            subject = reminder.subject
            body += reminder.lines
            buttons = reminder.buttons
            html = (reminder.htmlLines, reminder.htmlAfter)
            unsubscribe = links?(.stopReminders)
        case ("failed", _):
            subject = Localized("Your \(product) subscription could not be renewed")
            // A final decline, or the bank wanting the subscriber: nothing is tried again until they act.
            let next =
                subscription.dueAt >= RenewalSchedule.waitsForSubscriber
                ? Localized("Nothing was sent or charged, and this card is not tried again: add another card, or pay the delivery yourself.")
                : retry
            body += [
                words(Localized("We could not charge \(card) for your next delivery of \(product):")), "  \(MailMessage.oneLine(why))", "",
                words(next), "", words(Localized("To pay now (your bank can check it there) or to change the card: \(whereTo)")),
            ]
        case ("undeliverable", _):
            // Not the card's doing: the mail says what it was, and never that the card failed.
            subject = Localized("Your next \(product) delivery could not be sent")
            body += [
                words(Localized("Your next delivery of \(product) could not be sent:")), "  \(MailMessage.oneLine(why))", "", words(retry),
                "", words(Localized("To change the address or the subscription, or to cancel it: \(whereTo)")),
            ]
        case ("canceled", "renewals"):
            subject = Localized("Your \(product) subscription has ended")
            let failed =
                subscription.lastFailure == nil
                ? Localized("We could not charge \(card) for your delivery of \(product), and that was the last try:")
                : Localized("Your delivery of \(product) could not be sent, and that was the last try:")
            body += [
                words(failed), "  \(MailMessage.oneLine(why))", "",
                words(Localized("Your subscription is canceled and nothing more will be charged.")),
                words(Localized("To subscribe again: \(whereTo)")),
            ]
        case ("price", _):
            let each = MailMessage.oneLine(event.detail.components(separatedBy: ": ").last ?? event.detail)
            subject = Localized("The price of your \(product) subscription changes")
            body += [
                words(Localized("From your delivery on \(day: subscription.renewsAt), \(product) costs \(each).")),
                words(Localized("Your deliveries until then keep the price you had.")), "",
                words(Localized("To change the interval, skip a delivery or cancel before then: \(whereTo)")),
            ]
        default:
            let ending = subscription.endsAtPeriodEnd && subscription.status != .canceled
            subject = Localized("Your \(product) subscription is canceled")
            body += [
                words(
                    ending
                        ? Localized(
                            "\(shop.name) canceled your subscription to \(product): it ends on \(day: subscription.renewsAt) instead of renewing.")
                        : Localized("\(shop.name) canceled your subscription to \(product).")),
                words(Localized("Nothing more will be charged to \(card).")),
            ]
        }
        let title = words(subject)
        let page = MailHTML.notice(
            html?.lines ?? Array(body.dropFirst(2)), words: words, title: title, shop: shop.name, greeting: words.greeting(entry.recipient.name),
            buttons: buttons, after: html?.after ?? [])
        body += words.closing(shop: shop.name)
        var message = MailMessage(
            from: sender.from, replyTo: sender.replyTo, to: entry.recipient, subject: title, date: event.at, messageID: entry.messageID,
            text: body.joined(separator: "\n"), html: page)
        message.unsubscribe = unsubscribe
        return message
    }
}
