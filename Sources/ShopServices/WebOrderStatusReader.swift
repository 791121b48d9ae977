import Foundation
import ShopBootstrap
import ShopCredentialFile
import ShopIdentity
import ShopLanguages
import ShopModels
import ShopWebFront

/// The browser front's order pages over the shop's storage: a receipt's link checked under the code key, then the
/// order and its history read and written in the visitor's language.
public enum WebOrderStatusReader {
    /// Nil when the code key cannot be read (said through `log`): no link then opens a page.
    public static func make(
        storage: ShopStorage, environment: [String: String], now: @escaping @Sendable () -> Date = Date.init,
        log: @escaping @Sendable (String) -> Void = { _ in }
    ) -> WebOrderStatus? {
        let links: OrderStatusLinks
        do {
            let key = try AccountSignIn.codeKey(
                environment: environment, credentials: FileCredentialRepository(path: FileCredentialRepository.defaultPath(environment: environment)))
            links = OrderStatusLinks(codeKey: key, origin: "")
        } catch {
            log("order pages are off: the code key cannot be read: \(error)")
            return nil
        }
        let orders = storage.orders
        return { number, expires, signature, locale in
            switch links.check(number: number, expires: expires, signature: signature, now: now()) {
            case .invalid: return .notFound
            case .expired: return .expired
            case .valid: break
            }
            let order: Order?
            let events: [OrderEvent]
            do {
                order = try await orders.order(number: number)
                events = try await orders.events(orderNumber: number)
            } catch {
                log("an order page could not be read: \(error)")
                return .unavailable
            }
            guard let order else { return .notFound }
            // The order's own locale formats its money and days where the browser names none the shop speaks.
            let words = Translation.forLocale(locale ?? order.language)
            func money(_ amount: Money) -> String {
                words.money(
                    minorUnits: amount.minorUnits, currency: amount.currency.code, exponent: amount.currency.exponent, english: amount.formatted)
            }
            let tracking = events.compactMap { event -> String? in
                if case .shipped(let parcel) = event.change { return parcel.trackingURL } else { return nil }
            }
            return .page(
                WebOrderPage(
                    number: order.number, status: words.string(order.status.shopperName),
                    lines: order.lines.map { WebOrderPage.Line("\($0.quantity) × \($0.name)", money($0.total)) }, total: money(order.totals.total),
                    shipTo: order.shipTo,
                    history: events.map { WebOrderPage.Line(words.formats.minute($0.at), words.string($0.change.shopperWords)) },
                    tracking: tracking.filter { $0.hasPrefix("https://") || $0.hasPrefix("http://") }))
        }
    }
}
