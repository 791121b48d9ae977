import Crypto
import Foundation
import ShopIdentity
import ShopModels
import ShopPorts
import StorefrontTesting
import Testing

/// A renewal's reminder: what it says, in the subscriber's language, with signed links to skip that renewal, pause,
/// cancel or stop the reminders, and RFC 8058's one-click; and those links, refused altered or past their end.
@Suite("Renewal reminders: the mail and its links")
struct RenewalReminderMailTests {
    static let now = Date(timeIntervalSince1970: 1_796_025_600)  // 30 Nov 2026
    static let renews = now.addingTimeInterval(3 * 86_400)
    let links = SubscriptionLinks(codeKey: SymmetricKey(data: Data(repeating: 3, count: 32)), origin: "https://shop.example/")
    let sender = MailSender(from: MailAddress(name: "Storefront", address: "shop@example.com"))

    var subscription: Subscription {
        var subscription = Subscription(
            id: "sub_SF-000007", customerID: "acct_1", productID: "coffee", quantity: 2, intervalWeeks: 2, period: 4, renewsAt: Self.renews,
            cardID: "card_1", cardDescription: "Visa ••4242", shipTo: Fixtures.jane, shippingMethodID: "standard",
            unitPrice: Money(minorUnits: 1_800, currency: .usd))
        subscription.remindedPeriod = 4
        return subscription
    }

    func reminder(_ subscription: Subscription, links: ((SubscriptionLinkAction) -> String)?) -> MailMessage {
        let entry = SubscriptionMailEntry(
            subscriptionID: subscription.id, sequence: 9,
            event: SubscriptionEvent(at: Self.now, actor: "renewals", kind: "reminder", detail: "period 4: renews on 2026-12-03"),
            recipient: MailAddress(name: "Jane", address: "jane@example.com"), attempts: 0)
        return SubscriptionMail.compose(
            entry, subscription: subscription, product: "Compile-Time Coffee", shop: .standard(), sender: sender, manage: nil, links: links)
    }

    @Test func aReminderSaysWhatRenewsWhenAndForHowMuchWithALinkForEachWayOut() throws {
        let mail = reminder(subscription) { links.link($0, for: subscription) }
        #expect(mail.subject == "Your Compile-Time Coffee subscription renews on 2026-12-03")
        let text = mail.text
        for words in [
            "Your subscription to Compile-Time Coffee renews on 2026-12-03 (UTC).",
            "We will charge Visa ••4242 for 2 × Compile-Time Coffee at $18.00 each, with shipping and tax.",
            "It ships to Jane Appleseed, 1 Loop Road", "Skip this delivery: https://shop.example/subscription/sub_SF-000007/skip?p=4&e=",
            "Pause the subscription: https://shop.example/subscription/sub_SF-000007/pause?p=4&e=",
            "Cancel the subscription: https://shop.example/subscription/sub_SF-000007/cancel?p=4&e=",
            "Each link asks before it changes anything.", "Stop these reminders: https://shop.example/subscription/sub_SF-000007/stop-reminders?p=4",
        ] {
            #expect(text.contains(words), "\(words) in \(text)")
        }
        // The HTML part: a button for each way out, and no scripts or remote images.
        let html = try #require(mail.html)
        for label in ["Skip this delivery</a>", "Pause the subscription</a>", "Cancel the subscription</a>"] { #expect(html.contains(label)) }
        #expect(!html.contains("<script") && !html.contains("<img"))
        // RFC 8058: the stop link in List-Unsubscribe, and the header that says it takes a one-click POST.
        let wire = mail.rfc5322
        let unsubscribe = links.link(.stopReminders, for: subscription)
        #expect(wire.contains("List-Unsubscribe: <\(unsubscribe)>\n"), "\(wire)")
        #expect(wire.contains("List-Unsubscribe-Post: List-Unsubscribe=One-Click\n"))
        #expect(wire.contains("Content-Type: multipart/alternative"))
    }

    @Test func withoutAWebOriginTheReminderSaysWhereInTheShopAndOffersNoUnsubscribeHeader() {
        let mail = reminder(subscription, links: nil)
        #expect(mail.text.contains("To skip this delivery, pause or cancel: In the shop, open your account (u), then your subscriptions (r)."))
        #expect(!mail.rfc5322.contains("List-Unsubscribe"))
    }

    @Test func aReminderIsInTheSubscribersLanguage() {
        var german = subscription
        german.language = "de-DE"
        german.unitPrice = Money(minorUnits: 1_800, currency: .eur)
        let mail = reminder(german) { links.link($0, for: german) }
        #expect(mail.subject == "Ihr Abo von Compile-Time Coffee verlängert sich am 3. Dez. 2026", "\(mail.subject)")
        #expect(mail.text.contains("zu je 18,00\u{A0}€") && mail.text.contains("Diese Lieferung auslassen: https://"), "\(mail.text)")
        #expect(mail.html?.contains("<html lang=\"de\">") == true)
    }

    func parts(_ link: String) throws -> (action: String, period: String, expires: String, signature: String) {
        let match = try #require(
            link.firstMatch(of: /^https:\/\/shop\.example\/subscription\/sub_SF-000007\/([a-z-]+)\?p=(\d+)&e=(\d+)&s=([A-Za-z0-9_-]{43})$/), "\(link)"
        )
        return (String(match.1), String(match.2), String(match.3), String(match.4))
    }

    @Test func aLinkOpensItsOwnActionOnItsOwnRenewalUntilAMonthAfterItAndNothingElse() throws {
        let (action, period, expires, signature) = try parts(links.link(.skip, for: subscription))
        #expect(action == "skip" && period == "4")
        #expect(Double(expires) == Self.renews.timeIntervalSince1970 + SubscriptionLinks.lifetime)
        func check(_ signature: String, id: String = "sub_SF-000007", action: SubscriptionLinkAction = .skip, period: String = "4") -> SignedLinkCheck
        {
            links.check(id: id, action: action, period: period, expires: expires, signature: signature, now: Self.now).0
        }
        #expect(check(signature) == .valid)
        #expect(links.check(id: "sub_SF-000007", action: .skip, period: period, expires: expires, signature: signature, now: Self.now).period == 4)
        #expect(check(signature, action: .cancel) == .invalid, "a skip's signature cancels nothing")
        #expect(check(signature, id: "sub_SF-000008") == .invalid)
        #expect(check(signature, period: "5") == .invalid, "nor skips another renewal")
        #expect(check(String(signature.dropLast()) + (signature.last == "A" ? "B" : "A")) == .invalid)
        let end = Self.renews.addingTimeInterval(SubscriptionLinks.lifetime)
        #expect(links.check(id: "sub_SF-000007", action: .skip, period: period, expires: expires, signature: signature, now: end).0 == .expired)
        // Signed under another key (another shop's, or the order links' purpose), it opens nothing here.
        let other = SubscriptionLinks(codeKey: SymmetricKey(data: Data(repeating: 4, count: 32)), origin: "https://shop.example")
        let (_, _, _, foreign) = try parts(other.link(.skip, for: subscription))
        #expect(check(foreign) == .invalid)
        #expect(check(String(repeating: "A", count: 400)) == .invalid)
    }

    static let product = #"{"id": "mug", "name": "Mug", "price": 1200, "summary": "A mug.", "description": "A mug."}"#

    @Test func theMerchantSetsHowManyDaysAheadAndTheCatalogChecksIt() throws {
        func profile(_ days: String) throws -> (ShopProfile?, [CatalogIssue]) {
            let json = #"{"store": {"name": "Shop", "renewalReminderDays": \#(days)}, "products": [\#(Self.product)]}"#
            do { return (try CatalogLoader.load(data: Data(json.utf8), source: "catalog.json").shop, []) } catch let error as CatalogError {
                return (nil, error.issues)
            }
        }
        #expect(try profile("5").0?.renewalReminderDays == 5)
        #expect(try profile("0").0?.renewalReminderDays == 0)
        #expect(ShopProfile.standard().renewalReminderDays == 3)
        for wrong in ["7", "-1", "\"3\"", "2.5"] {
            let (shop, issues) = try profile(wrong)
            #expect(shop == nil && issues.map(\.path) == ["$.store.renewalReminderDays"], "\(wrong): \(issues)")
        }
    }
}
