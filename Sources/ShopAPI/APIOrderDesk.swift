import Foundation
import ShopApplication
import ShopIdentity
import ShopLanguages
import ShopModels
import ShopPorts

/// What the shopper's order endpoints need beyond the catalog and carts: the wallet, the payment side, the orders.
package struct APICommerce: Sendable {
    package var wallets: any WalletRepository
    package var profiles: any AccountProfileRepository
    package var provider: any PaymentProvider
    package var backend: any MerchantBackend
    /// The charges a bank's check holds open, followed for their shopper.
    package var openCharges: any OpenCharges
    package var orders: any OrderHistory
    package var backOffice: any BackOffice
    package var idempotency: any IdempotencyRepository
    /// What the provider needs to make a token for a saved card without a payment sheet (the sandbox: its card id).
    package var methodData: @Sendable (PaymentMethod) -> String
    /// The cards `POST /v1/cards` may add: the sandbox's tokenised test cards.
    package var testCards: [PaymentMethod]
    /// Names new addresses, as the shop's address form does.
    package var ids: IDGenerator
    package var now: @Sendable () -> Date
    /// The merchant's catalog editing; nil where the server edits none.
    package var catalogEditor: (any CatalogEditing)?
    /// The shop's discount codes; nil where it takes none (every code is unknown).
    package var discounts: (any DiscountCodes)?
    /// The shop's subscriptions; nil where the server keeps none.
    package var subscriptions: (any SubscriptionRepository)?
    /// Where a merchant's uploaded pictures are checked and kept; nil where the server takes none.
    package var pictureIntake: (any PictureIntake)?
    /// Discount codes tried that are not the shop's (or are paused, which reads the same), per account and per client
    /// address: 10 at once, then 10 an hour, as the terminal's sheet stops after ten. Tokens are free to make, so
    /// their number buys no more guesses.
    package var codeGuesses = RateLimiter(perHour: CodeGuesses.perHour, burst: CodeGuesses.burst)

    package init(
        wallets: any WalletRepository, profiles: any AccountProfileRepository, provider: any PaymentProvider,
        backend: any MerchantBackend & OpenCharges,
        orders: any OrderHistory, backOffice: any BackOffice,
        idempotency: any IdempotencyRepository, methodData: @escaping @Sendable (PaymentMethod) -> String, testCards: [PaymentMethod],
        ids: IDGenerator = .random, now: @escaping @Sendable () -> Date = Date.init, catalogEditor: (any CatalogEditing)? = nil,
        discounts: (any DiscountCodes)? = nil, subscriptions: (any SubscriptionRepository)? = nil, pictureIntake: (any PictureIntake)? = nil
    ) {
        self.pictureIntake = pictureIntake
        self.discounts = discounts
        self.subscriptions = subscriptions
        self.catalogEditor = catalogEditor
        self.testCards = testCards
        self.ids = ids
        self.wallets = wallets
        self.profiles = profiles
        self.provider = provider
        self.backend = backend
        openCharges = backend
        self.orders = orders
        self.backOffice = backOffice
        self.idempotency = idempotency
        self.methodData = methodData
        self.now = now
    }
}

/// How many codes that are not the shop's one account, or one address, may try through the API.
package enum CodeGuesses {
    package static let burst = 10
    package static let perHour = 10
}

/// Buys a shopper's cart through the API, once: a repeat of the same Idempotency-Key is answered by
/// `IdempotencyGate`, and a cart is held by one purchase at a time, whichever key it came with.
///
/// Order of calls: the cart claimed for this purchase (another under way: a 409) → the cart, address, card and
/// shipping method read and checked → the application's `PlaceOrder` (the one the terminal's sheet places orders
/// through): a token, then the charge under a key derived from the owner and theirs (so a repeat after a crash finds
/// the same charge, never a second one) → the cart emptied → the cart's claim released.
struct APIOrderDesk {
    let shop: APIShop
    let commerce: APICommerce

    struct Request {
        var addressID: String?
        var cardID: String?
        var shippingMethod: String?
        /// A discount code, as the shopper typed it.
        var discountCode: String?
        /// Starts a subscription to the cart's one line every so many weeks.
        var subscribeEveryWeeks: Int? = nil
    }

    /// The key a cart's purchase is claimed under, for the owner `cart:<customer>`: no token's owner is spelled so
    /// (theirs are `shop:` or `merchant:`), so no client's key meets it.
    static let cartClaim = "purchase"
    /// How long a purchase may hold the cart before another takes it over (the first one's process died).
    static let cartAbandonedAfter: TimeInterval = 120

    /// What a purchase came to: paid, or waiting for the bank's check at `url`.
    enum Placed {
        case paid(Order)
        case awaitingBankCheck(Order, url: String)
    }

    /// `key` has passed `IdempotencyGate`, which checked it and holds it for this request.
    func place(_ request: Request, owner: String, key: String) async throws -> Placed {
        let time = commerce.now()
        let claim = try await commerce.idempotency.claim(
            owner: "cart:\(owner)", key: Self.cartClaim, fingerprint: "purchase", at: time, abandonedBefore: time - Self.cartAbandonedAfter
        )
        guard claim == .granted else {
            throw APIProblem(.requestInFlight, "Another purchase of this cart is under way; ask again in a moment.", retryAfter: 1)
        }
        do {
            let order = try await buy(request, owner: owner, key: key)
            try? await commerce.idempotency.release(owner: "cart:\(owner)", key: Self.cartClaim)
            return order
        } catch {
            try? await commerce.idempotency.release(owner: "cart:\(owner)", key: Self.cartClaim)
            throw error
        }
    }

    private func buy(_ request: Request, owner: String, key: String) async throws -> Placed {
        let draft = try await draft(request, owner: owner)
        let backendKey = "api_" + Encodings.sha256Hex("\(owner)\n\(key)").prefix(32)
        let payment = Payment(
            method: draft.card, methodData: commerce.methodData(draft.card), shippingContact: draft.order.shippingContact,
            shippingMethod: draft.order.shippingMethod, transactionIdentifier: backendKey
        )
        let confirmation: OrderConfirmation
        let (step, _) = await PlaceOrder(provider: commerce.provider, backend: commerce.backend).charge(
            draft.order, paying: payment, key: backendKey, token: nil)
        switch step {
        case .paid(let paid):
            confirmation = paid
        case .bankCheck(let url):
            // The order holds its lines and stock while the bank checks: the cart is bought, the check decides.
            guard let number = try await commerce.openCharges.openOrderNumber(idempotencyKey: backendKey),
                let order = try await commerce.orders.order(number: number)
            else {
                throw APIProblem(
                    .unavailable, "The bank wants to check this payment, and its order cannot be read; try again with the same key.", retryAfter: 5)
            }
            try await shop.carts.save([], forCustomer: owner)
            return .awaitingBankCheck(order, url: url)
        case .noAnswer:
            throw Self.problem(MerchantBackendError.timedOut)
        case .tokenRefused(let error):
            throw Self.problem(error)
        case .refused(let error):
            throw Self.problem(error)
        }
        try await shop.carts.save([], forCustomer: owner)
        guard let order = try await commerce.orders.order(number: confirmation.orderNumber) else {
            throw APIProblem(.internal, "Order \(confirmation.orderNumber) was paid but cannot be read back.")
        }
        return .paid(order)
    }

    /// The order the cart and the chosen address, card and shipping make, or a 422 naming what is missing.
    func draft(_ request: Request, owner: String) async throws -> (order: OrderDraft, card: PaymentMethod) {
        let lines = try await shop.carts.lines(forCustomer: owner)
        guard !lines.isEmpty else {
            throw APIProblem(
                .validation, "The cart is empty: put products in it with PUT /v1/cart/lines/{productId}.",
                errors: [.init(field: "cart", message: "is empty")])
        }
        // The catalog's prices are the ones charged: a cart keeps the price a line was put in at.
        let verdict = try await CatalogCheck.lines(lines, in: shop.catalog)
        switch verdict {
        case .unchanged: break
        case .repriced(let current, let changes):
            // The cart takes today's prices, so the same request, sent again once the buyer agrees, is charged those.
            try await shop.carts.save(current, forCustomer: owner)
            throw APIProblem(
                .pricesChanged, (verdict.line ?? "") + " The cart holds the new prices now.",
                errors: changes.map { .init(field: "cart.\($0.stockKey.rawValue)", message: "now \($0.now.formatted) each, was \($0.was.formatted)") }
            )
        case .withdrawn(let names):
            throw APIProblem(
                .validation, verdict.line ?? "", errors: names.map { .init(field: "cart", message: "\($0) is no longer sold") })
        }
        let wallet = try await commerce.wallets.wallet(forCustomer: owner)
        let address =
            try request.addressID.map { id in
                guard let found = wallet.addresses.first(where: { $0.id == id }) else {
                    throw Self.missing("addressId", "no saved address has the id \"\(id.prefix(100))\"")
                }
                return found
            } ?? wallet.defaultAddress
        guard let address else { throw Self.missing("addressId", "no saved address: add one with POST /v1/addresses") }
        let chargeable = wallet.cards.filter(commerce.provider.canCharge)
        let card =
            try request.cardID.map { id in
                guard let found = chargeable.first(where: { $0.id == id }) else {
                    throw Self.missing("cardId", "no saved card this shop can charge has the id \"\(id.prefix(100))\"")
                }
                return found
            } ?? (chargeable.first { $0.id == wallet.defaultCardID } ?? chargeable.first)
        guard let card else { throw Self.missing("cardId", "no saved card: add one with POST /v1/cards") }
        var discount: DiscountCode?
        if let typed = request.discountCode { discount = try await code(typed, owner: owner) }
        var subscription: SubscriptionStart?
        if let weeks = request.subscribeEveryWeeks { subscription = try await subscriptionStart(weeks, lines: lines) }
        // The address decides the market, as on the payment sheet: its currency, its prices, its shipping.
        let (market, exchange) = Self.market(of: address.address, home: shop.catalog)
        var order: OrderDraft
        do {
            order = try PlaceOrder.draft(
                lines: market.map { market in lines.map { market.pricing.line($0, in: market.market) } } ?? lines,
                shippingMethodID: request.shippingMethod, contact: address, customerID: owner, shop: market?.shop ?? shop.catalog.shop,
                discount: discount, subscription: subscription, exchange: exchange)
            order.language = APICaller.locale
        } catch .shipsElsewhere(let refusal) {
            throw Self.missing("addressId", refusal)
        } catch .discount(let refusal) {
            throw Self.missing("discountCode", refusal.words)
        } catch .subscription(let why) {
            throw Self.missing("subscribeEveryWeeks", why)
        } catch {
            throw Self.missing("shippingMethod", error.message)
        }
        if let refusal = commerce.provider.chargeRefusal(order.totals.total) {
            // Under the provider's smallest charge because of a code: the code is what to change.
            guard order.discount != nil else { throw Self.missing("cart", refusal) }
            throw Self.missing("discountCode", DiscountRefusal.leavesTooLittle(total: order.totals.total, why: refusal).words)
        }
        return (order, card)
    }

    /// The subscription every `weeks` weeks the cart's one line starts, or a 422 saying why it cannot: the shop keeps
    /// none, the cart holds more than one line, or the product is not sold at that interval.
    private func subscriptionStart(_ weeks: Int, lines: [CartLine]) async throws -> SubscriptionStart {
        guard commerce.subscriptions != nil else { throw Self.missing("subscribeEveryWeeks", "this shop takes no subscriptions") }
        guard lines.count == 1, let line = lines.first else {
            throw Self.missing("subscribeEveryWeeks", "a subscription is to one product: the cart must hold one line")
        }
        let offered = try await shop.catalog.product(id: line.productID)?.subscriptionWeeks ?? []
        guard offered.contains(weeks) else {
            let every = offered.map(String.init).joined(separator: ", ")
            throw Self.missing(
                "subscribeEveryWeeks", offered.isEmpty ? "\(line.name) is not sold by subscription" : "\(line.name) is sold every \(every) weeks")
        }
        return SubscriptionStart(everyWeeks: weeks)
    }

    /// The code `typed` names, holding now with a use left for `owner`; else a 422 saying in one line why not.
    private func code(_ typed: String, owner: String) async throws -> DiscountCode {
        guard let discounts = commerce.discounts else { throw Self.missing("discountCode", DiscountRefusal.unknown.words) }
        // Spent guesses are checked before the code is: once they are, the real code is refused like any other.
        let guessers = ["account \(owner)", "address \(APICaller.current?.address ?? "unknown")"]
        let at = Duration.seconds(commerce.now().timeIntervalSinceReferenceDate)
        if let wait = guessers.compactMap({ commerce.codeGuesses.emptyFor($0, at: at) }).max() {
            throw APIProblem(
                .rateLimited,
                "Too many discount codes that are not this shop's were tried (\(CodeGuesses.perHour) an hour); try again in \((wait + 59) / 60) min.",
                retryAfter: wait)
        }
        switch try await discounts.check(typed, customer: owner, at: commerce.now()) {
        case .success(let code): return code
        case .failure(let refusal):
            if refusal == .unknown { for guesser in guessers { _ = commerce.codeGuesses.take(guesser, at: at) } }
            throw Self.missing("discountCode", refusal.words)
        }
    }
}
