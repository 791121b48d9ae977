import Foundation
import ShopLanguages
import ShopModels

extension SubscriptionMail {
    /// A reminder's words: when the subscription renews, what it charges to which card and where it ships, and the
    /// links that skip that renewal, pause, cancel or stop the reminders (each opens a page that asks first).
    struct Reminder {
        let subject: Localized
        /// The text between the greeting and the closing.
        let lines: [String]
        /// The HTML part's buttons: the action links of the text, as labels.
        let buttons: [(label: String, link: String)]
        /// The HTML part's paragraphs before the buttons, and after them.
        let htmlLines: [String]
        let htmlAfter: [String]

        init(subscription: Subscription, product: String, words: MailWords, whereTo: String, links: ((SubscriptionLinkAction) -> String)?) {
            let day = subscription.renewsAt
            subject = Localized("Your \(product) subscription renews on \(day: day)")
            let quantity = subscription.quantity
            let charge =
                subscription.unitPrice.map { each in
                    Localized(
                        "We will charge \(subscription.cardDescription) for \(quantity) × \(product) at \(words.money(each)) each, with shipping and tax."
                    )
                } ?? Localized("We will charge \(subscription.cardDescription) for \(quantity) × \(product), with shipping and tax.")
            var lines = [
                words(Localized("Your subscription to \(product) renews on \(day: day) (UTC).")), words(charge),
                words(Localized("It ships to \(subscription.shipTo.shipToLine).")), "",
            ]
            guard let links else {
                lines.append(words(Localized("To skip this delivery, pause or cancel: \(whereTo)")))
                self.lines = lines
                (htmlLines, buttons, htmlAfter) = (lines, [], [])
                return
            }
            let labelled: [(Localized, SubscriptionLinkAction)] = [
                (Localized("Skip this delivery"), .skip), (Localized("Pause the subscription"), .pause),
                (Localized("Cancel the subscription"), .cancel),
            ]
            let asks = words(Localized("Each link asks before it changes anything."))
            let stop = words(Localized("Stop these reminders: \(links(.stopReminders))"))
            htmlLines = lines + [asks]
            htmlAfter = [stop]
            self.lines = lines + labelled.map { "\(words($0.0)): \(links($0.1))" } + [asks, "", stop]
            buttons = labelled.map { (words($0.0), links($0.1)) }
        }
    }
}
