import Foundation
import ShopBootstrap
import ShopCredentialFile
import ShopIdentity
import ShopLanguages
import ShopModels
import ShopWebFront

/// The browser front's pages that the shop's mails link to, over the shop's storage: each link checked under the
/// code key, then read (and for a reminder's link, carried out) in the visitor's language.
public enum WebMailPageReaders {
    /// No pages when the code key cannot be read (said through `log`): no link then opens anything.
    public static func make(
        storage: ShopStorage, environment: [String: String], now: @escaping @Sendable () -> Date = Date.init,
        log: @escaping @Sendable (String) -> Void = { _ in }
    ) -> WebMailPages {
        let links: MailLinks
        do {
            let key = try AccountSignIn.codeKey(
                environment: environment, credentials: FileCredentialRepository(path: FileCredentialRepository.defaultPath(environment: environment)))
            links = MailLinks(codeKey: key, origin: "")
        } catch {
            log("order and subscription pages are off: the code key cannot be read: \(error)")
            return WebMailPages()
        }
        return WebMailPages(
            orderStatus: orderStatus(links.orders, storage: storage, now: now, log: log),
            subscriptionLinks: subscriptionLinks(links.subscriptions, storage: storage, log: log), pictures: pictures(storage, log: log))
    }

    /// The products' pictures by digest, as the shop stores them.
    static func pictures(_ storage: ShopStorage, log: @escaping @Sendable (String) -> Void) -> WebPictures {
        let repository = storage.pictures
        return { digest in
            do {
                guard let picture = try await repository.picture(digest: digest) else { return .notFound }
                return .picture(WebPicture(mediaType: picture.mediaType, bytes: picture.bytes))
            } catch {
                log("a picture could not be read: \(error)")
                return .unavailable
            }
        }
    }

    /// A receipt's link: its order's page, read in the visitor's language.
    static func orderStatus(
        _ links: OrderStatusLinks, storage: ShopStorage, now: @escaping @Sendable () -> Date, log: @escaping @Sendable (String) -> Void
    ) -> WebOrderStatus {
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
            // Each line's picture as the catalog has it now; a product gone from it shows none.
            let pictures = await storage.catalog.pictureDigests(of: order)
            let tracking = events.compactMap { event -> String? in
                if case .shipped(let parcel) = event.change { return parcel.trackingURL } else { return nil }
            }
            return .page(
                WebOrderPage(
                    number: order.number, status: words.string(order.status.shopperName),
                    lines: zip(order.lines, pictures).map { line, picture in
                        WebOrderPage.Line("\(line.quantity) × \(line.name)", money(line.total), picture: picture)
                    }, total: money(order.totals.total),
                    shipTo: order.shipTo,
                    history: events.map { WebOrderPage.Line(words.formats.minute($0.at), words.string($0.change.shopperWords)) },
                    tracking: tracking.filter { $0.hasPrefix("https://") || $0.hasPrefix("http://") }))
        }
    }
}
