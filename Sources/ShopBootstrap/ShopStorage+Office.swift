import ShopApplication
import ShopModels
import ShopPorts

extension ShopStorage {
    /// How old an unanswered charge or refund must be before a start settles it, so one a live session is still
    /// paying is left to it: `STOREFRONT_SETTLE_AFTER_SECONDS`, 120 by default.
    public static func settleAfter(environment: [String: String]) -> Duration {
        .seconds(environment["STOREFRONT_SETTLE_AFTER_SECONDS"].flatMap(Int.init).map { max(0, $0) } ?? 120)
    }

    /// The merchant backend every front charges through (the terminal's sheet, the API, the webhook listener); `dates`
    /// is the clock a test moves.
    public func merchantBackend(_ payments: PaymentStack, environment: [String: String], dates: DateSource = .system) -> LiveMerchantBackend {
        let fault = FaultHook(environment: environment)
        return LiveMerchantBackend(processor: payments.processor, orders: orders, dates: dates, subscriptions: subscriptions) {
            fault.reached($0.rawValue)
        }
    }

    /// The renewal worker over this shop's subscriptions, charging through `payments`, its leases held as `name`.
    public func renewalWorker(_ payments: PaymentStack, environment: [String: String], name: String) -> RenewalWorker {
        var worker = RenewalWorker(
            store: subscriptions, catalog: catalog, wallets: wallets, provider: payments.provider,
            backend: merchantBackend(payments, environment: environment), methodData: { payments.methodData($0) }, name: name)
        let accounts = accounts
        // An address without an email still reaches its subscriber: the account's verified email.
        worker.accountEmail = { customer in
            guard let account = try? await accounts.account(id: customer), account.emailVerifiedAt != nil, let email = account.email else {
                return nil
            }
            return MailAddress(name: account.name ?? "", address: email)
        }
        return worker
    }

    /// The back office every front changes orders through (the console, the API, the `orders` commands): this shop's
    /// orders, stock, mail and currency, its provider's refunds.
    public func backOffice(_ payments: PaymentStack, environment: [String: String], dates: DateSource = .system) -> LiveBackOffice {
        let fault = FaultHook(environment: environment)
        return LiveBackOffice(
            orders: orders, stock: stock, processor: payments.refunds, mail: outbox, dates: dates, currency: currency,
            refundInFlightAge: Self.settleAfter(environment: environment)
        ) { fault.reached($0.rawValue) }
    }
}
