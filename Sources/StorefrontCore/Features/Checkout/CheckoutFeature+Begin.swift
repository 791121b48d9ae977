import ShopModels
import ShopPorts

/// Opening the payment sheet: the device's checks, the wallet's in an effect, a fresh controller, and One-Tap's ways in.
extension CheckoutFeature {
    /// Opens the payment sheet for `order`.
    ///
    /// Order of calls: canMakePayments → in an effect, the device wallet pointed at the customer paying, the
    /// customer's unanswered orders settled (one paid, or one
    /// still unknown, holds the checkout: nothing is charged twice) and canMakePaymentsUsingNetworks, as it reads
    /// the wallet (false: offer card setup) → makeController (nil: unable to initialize) → present → the shopper
    /// picks and pays.
    static func begin(_ state: inout State, _ order: CheckoutOrder, oneTap: Bool, _ env: ShopEnvironment) -> Effect {
        guard !order.lines.isEmpty else {
            state.shell.notice = Notice(.info, "Your cart is empty. Press s to shop.")
            return .none
        }
        let auth = env.dependencies.paymentAuthorization
        guard auth.canMakePayments() else {
            state.shell.notice = Notice(.error, "Payments are not available on this device.")
            return .none
        }
        guard let (_, _, request) = paymentRequest(for: order, oneTap: oneTap, env.shopProfile) else {
            state.shell.notice = Notice(.error, "No shipping method takes an order this heavy: remove some items.")
            return .none
        }
        state.isCheckingWallet = true
        let networks = request.supportedNetworks
        let noticeBefore = state.noticeBeforeAction
        let (backend, customer) = (env.dependencies.merchantBackend, state.customerID)
        let owner = env.dependencies.accounts.walletOwner
        return .run { send in
            // Here, not where the customer changed: keys typed ahead can pay before that change's effects ran.
            owner.customerID = customer
            let openOrders: Result<OpenOrderCheck, MerchantBackendError>
            do throws(MerchantBackendError) {
                openOrders = .success(try await backend.settleOpenOrders(customer: customer))
            } catch {
                openOrders = .failure(error)
            }
            let canPay = await auth.canMakePaymentsUsingNetworks(networks)
            send(.checkout(.walletChecked(order, oneTap: oneTap, canPay: canPay, noticeBefore: noticeBefore, openOrders: openOrders)))
        }
    }

    /// An earlier order that went unanswered holds the checkout: paid, its lines leave the cart and nothing is
    /// charged again; still unknown, nothing may be paid until it is. Nil when nothing holds it.
    static func heldByOpenOrders(_ state: inout State, _ openOrders: Result<OpenOrderCheck, MerchantBackendError>) -> Effect? {
        switch openOrders {
        case .failure(let error):
            state.shell.notice = Notice(
                .error, "Your earlier orders could not be checked, so nothing was charged: \(CheckoutMessages.message(for: error))")
            return Effect.none
        case .success(let check):
            if !check.paid.isEmpty {
                let numbers = check.paid.map(\.number).joined(separator: ", ")
                state.shell.notice = Notice(
                    .info, "Your earlier payment went through: order \(numbers) is paid and in your orders (o). Nothing more was charged.")
                return .send(.checkout(.delegate(.removeBoughtLines(check.paid.flatMap(\.lines)))))
            }
            if let open = check.stillOpen.first {
                state.shell.notice = Notice(
                    .error,
                    "Your payment for order \(open) is still being checked with the payment service. Nothing more is charged until it is known; try again in a moment."
                )
                return Effect.none
            }
            return nil
        }
    }

    /// What a checkout starts with, before an address is chosen: the home region's quote, its first method (the
    /// cheapest for One-Tap) and the payment request; nil where the home region ships nothing this heavy.
    private static func paymentRequest(for order: CheckoutOrder, oneTap: Bool, _ shop: ShopProfile) -> (
        ShippingMethod, ShippingQuote, PaymentRequest
    )? {
        let quote = shop.estimate(for: Cart(currency: shop.currency, lines: order.lines))
        let subtotal = order.lines.subtotal(in: shop.currency)
        guard let shipping = CheckoutSheet.method(in: quote, keeping: nil, cheapest: oneTap, subtotal: subtotal) else { return nil }
        return (shipping, quote, CheckoutSheet.paymentRequest(lines: order.lines, shipping: shipping, quote: quote, shop))
    }

    /// The wallet answered: the sheet offers card setup, or a fresh controller presents it.
    static func walletChecked(_ state: inout State, _ order: CheckoutOrder, oneTap: Bool, canPay: Bool, noticeBefore: Notice?, _ env: ShopEnvironment)
        -> Effect
    {
        let shop = env.shopProfile
        guard let (shipping, quote, request) = paymentRequest(for: order, oneTap: oneTap, shop) else { return .none }
        guard canPay else {
            state.sheetAwaits = .cardToStart(order)
            let networks = shop.supportedNetworks.map(\.displayName).joined(separator: ", ")
            openSheet(
                &state,
                PaymentSheetState(
                    merchantName: shop.name, rowValues: [.card: "No card on \(networks)"], summaryItems: request.summaryItems, phase: .needsCard
                ))
            state.shell.notice = Notice(.error, CheckoutMessages.message(for: .networksNotSupported))
            return .none
        }
        state.checkout = Checkout(order: order, oneTap: oneTap, shippingMethod: shipping, quote: quote, noticeBeforeCheckout: noticeBefore)
        state.checkout?.exchange = env.market.flatMap { market in env.dependencies.markets?.exchange(in: market) }
        let makeController = env.dependencies.paymentAuthorization.makeController
        // A fresh controller per checkout, asked what the sheet offers; the checkout keeps the rest.
        return .run { send in
            send(.checkout(.presented(await makeController(request)?.present())))
        }
    }

    /// One-Tap's destination: the sheet with the defaults, straight to the authorization prompt.
    static func navigate(_ state: inout State, to destination: Destination, _ env: ShopEnvironment) -> Effect {
        switch destination {
        case .oneTapCheckout(.cart):
            return begin(&state, CheckoutOrder(lines: state.cartLines, clearsCartOnSuccess: true), oneTap: true, env)
        case .oneTapCheckout(.product(let id, let sku)):
            let catalog = env.dependencies.catalog
            state.isCheckingWallet = true
            return .run { send in
                let product = (try? await catalog.product(id: id)) ?? nil
                // The variant chosen on the page, as the catalog has it now; its default where none was chosen.
                send(
                    .checkout(
                        .productForOneTap(
                            product.map { product in
                                sku.flatMap { sku in product.variants.first { $0.sku == sku } }.map(product.narrowed(to:)) ?? product
                            })))
            }
        }
    }

    /// The product One-Tap buys, as the catalog has it now.
    static func buyNow(_ state: inout State, _ product: Product?, _ env: ShopEnvironment) -> Effect {
        state.isCheckingWallet = false
        guard let product else {
            state.shell.notice = Notice(.error, "That product is no longer sold.")
            return .none
        }
        let purchase = product.purchasable
        let line = CartLine(product: purchase, variant: purchase.variants.first, quantity: 1)
        return begin(&state, CheckoutOrder(lines: [line], clearsCartOnSuccess: false), oneTap: true, env)
    }
}
