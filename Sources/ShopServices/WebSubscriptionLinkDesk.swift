import Foundation
import ShopBootstrap
import ShopIdentity
import ShopLanguages
import ShopModels
import ShopPorts
import ShopWebFront

extension WebMailPageReaders {
    /// A reminder's links over the shop's storage, at the shop's time (which `storefront clock advance` moves).
    ///
    /// Order of calls per request: the link checked (404 altered, 410 past its end) → the subscription read → a GET
    /// asks, saying first what stands in the way → a POST makes the change as the subscriber, every front's way
    /// (`SubscriptionRepository.change`), a skip only while the reminded renewal is still the next one.
    static func subscriptionLinks(_ links: SubscriptionLinks, storage: ShopStorage, log: @escaping @Sendable (String) -> Void) -> WebSubscriptionLinks
    {
        let store = storage.subscriptions
        let catalog = storage.catalog
        return { asked in
            guard let action = SubscriptionLinkAction(rawValue: asked.action) else { return .notFound }
            await storage.clock.refresh(from: storage.clockStore)
            let now = storage.clock.now()
            let (check, period) = links.check(
                id: asked.id, action: action, period: asked.period, expires: asked.expires, signature: asked.signature, now: now)
            switch check {
            case .invalid: return .notFound
            case .expired: return .expired
            case .valid: break
            }
            let found: Subscription?
            do { found = try await store.subscription(id: asked.id) } catch {
                log("a subscription link could not be read: \(error)")
                return .unavailable
            }
            guard let subscription = found else { return .notFound }
            let words = Translation.forLocale(asked.locale ?? subscription.language)
            let product =
                ((try? await catalog.product(id: subscription.productID)) ?? nil).map { product in
                    subscription.offer(in: product)?.variant.map { CartLine.name(product.name, $0.title) } ?? product.name
                } ?? subscription.productID.rawValue
            let renewal = action == .skip ? period : nil
            guard asked.confirmed else {
                if let renewal, renewal != subscription.period {
                    return .refused(words.string(.lookup(SubscriptionChangeRefusal.renewedAlready.line)))
                }
                if case .failure(let refusal) = subscription.applying(action.change, at: now, offered: []) {
                    return .refused(words.string(.lookup(refusal.line)))
                }
                let (question, button) = Self.asking(action, product: product, on: subscription.renewsAt)
                return .ask(question: words.string(question), button: words.string(button))
            }
            let changed: Result<Subscription, SubscriptionChangeRefusal>
            do {
                changed = try await store.change(
                    subscription.id, action.change, by: "shopper:\(subscription.customerID)", period: renewal, at: now)
            } catch {
                log("a subscription link's change could not be saved: \(error)")
                return .unavailable
            }
            switch changed {
            case .success(let after): return .done(words.string(Self.done(action, product: product, on: after.renewsAt)))
            case .failure(let refusal): return .refused(words.string(.lookup(refusal.line)))
            }
        }
    }

    /// What the page asks before `action`, and its button.
    static func asking(_ action: SubscriptionLinkAction, product: String, on day: Date) -> (Localized, Localized) {
        switch action {
        case .skip:
            (
                Localized("Skip your delivery of \(product) on \(day: day)? Nothing is sent or charged for it; the one after comes as usual."),
                Localized("Skip this delivery")
            )
        case .pause:
            (
                Localized("Pause your subscription to \(product)? Nothing is sent or charged until you resume it in your account."),
                Localized("Pause the subscription")
            )
        case .cancel:
            (
                Localized("Cancel your subscription to \(product)? It ends on \(day: day) instead of renewing, and nothing more is charged."),
                Localized("Cancel the subscription")
            )
        case .stopReminders:
            (
                Localized("Stop the reminders before each renewal of \(product)? The subscription goes on as it is."),
                Localized("Stop the reminders")
            )
        }
    }

    /// What the page says once `action` is done.
    static func done(_ action: SubscriptionLinkAction, product: String, on day: Date) -> Localized {
        switch action {
        case .skip: Localized("Skipped: your delivery of \(product) on \(day: day) is not sent or charged.")
        case .pause: Localized("Paused: nothing more is sent or charged until you resume it in your account.")
        case .cancel: Localized("Canceled: your subscription to \(product) ends on \(day: day), and nothing more is charged.")
        case .stopReminders: Localized("Done: no more reminders before renewals of \(product).")
        }
    }
}
