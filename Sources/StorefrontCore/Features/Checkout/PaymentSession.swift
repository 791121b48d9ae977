import ShopModels
import ShopPorts

/// One payment sheet's session with its controller: the controller's delegate, so the store is not.
///
/// Order of calls: `present()` → the shopper's choices go through `select…` and the delegate's
/// answers come back as updates → `authorize(processing:)` returns the whole outcome (the delegate places
/// the order while the controller waits, and says when it starts through `processing`) →
/// `closeAfterPayment()`, or `close()`, which says whether a payment was authorized on the sheet.
///
/// It posts nothing itself: what it hears is returned to, or called back into, the effect driving it,
/// which sends it as an action.
@MainActor
public final class PaymentSession: PaymentAuthorizationControllerDelegate {
    private let controller: any PaymentAuthorizationControlling
    private let placement: OrderPlacement
    private let shop: ShopProfile
    /// The shipping method the delegate prices the summary with, as the controller reports it.
    private var shippingMethod: ShippingMethod
    /// Set once the shopper authorizes a payment on this sheet; decides what closing the sheet leaves behind.
    private var didAuthorize = false
    private var attempt: ChargeAttempt?
    private var placed: CheckoutOutcome?
    /// Told when an authorized payment's order starts being placed; set by `authorize(processing:)` for its call.
    private var processing: (@MainActor () -> Void)?
    /// Told the address of the bank's check (3-D Secure) when a charge waits for one; set by `authorize`.
    private var bankCheckShown: (@MainActor (String) -> Void)?
    /// Told when the shop starts asking whether an unanswered charge went through; set by `authorize`.
    private var checkingShown: (@MainActor () -> Void)?
    private let clock: any Clock<Duration>
    /// Esc while the sheet waits (a bank's check, an unanswered charge): wakes the wait between looks at once.
    /// A fresh stream per payment, so an Esc of an earlier one is never taken for this one's.
    private var (leavings, leave) = AsyncStream<Void>.makeStream()
    private var hasStoppedWaiting = false

    init(
        controller: any PaymentAuthorizationControlling, order: CheckoutOrder, shippingMethod: ShippingMethod, customerID: String,
        _ env: ShopEnvironment
    ) {
        let dependencies = env.dependencies
        self.controller = controller
        self.shop = env.shopProfile
        self.shippingMethod = shippingMethod
        self.clock = dependencies.clock
        self.placement = OrderPlacement(
            provider: dependencies.paymentProvider, backend: dependencies.merchantBackend, ids: dependencies.ids,
            shop: env.shopProfile, order: order, customerID: customerID
        )
        controller.delegate = self
    }

    /// Shows the sheet; nil when it could not be shown.
    func present() async -> PaymentSheetOptions? {
        await controller.present()
    }

    func select(_ method: PaymentMethod) async -> PaymentRequestUpdate {
        await controller.selectPaymentMethod(method)
    }

    func select(_ method: ShippingMethod) async -> PaymentRequestUpdate {
        await controller.selectShippingMethod(method)
    }

    func select(_ contact: Contact) async -> ShippingContactUpdate {
        await controller.selectShippingContact(contact)
    }

    /// The shopper confirmed: the controller authorizes, and the outcome pairs its result with the order placed.
    /// `processing` is called once the payment is authorized and the order is being placed.
    func authorize(
        processing: @escaping @MainActor () -> Void, bankCheck: @escaping @MainActor (String) -> Void, checking: @escaping @MainActor () -> Void
    ) async -> CheckoutOutcome {
        placed = nil
        hasStoppedWaiting = false
        leave.finish()
        (leavings, leave) = AsyncStream<Void>.makeStream()
        self.processing = processing
        self.bankCheckShown = bankCheck
        self.checkingShown = checking
        defer {
            self.processing = nil
            self.bankCheckShown = nil
            self.checkingShown = nil
        }
        let result = await controller.authorize()
        if result.status == .success, case .paid(let confirmation)? = placed { return .paid(confirmation) }
        return .notPaid(result.errors.first ?? "The payment did not go through.")
    }

    /// Esc while the sheet waits: a charge waiting for the bank's check is given up (unless it went through first);
    /// an unanswered one is left to the next Pay, which settles it before anything else.
    func stopWaiting() {
        hasStoppedWaiting = true
        leave.yield()
    }

    /// Waits `duration` for the next look; true when the shopper stopped waiting meanwhile.
    private func waitOrLeave(_ duration: Duration) async -> Bool {
        if hasStoppedWaiting { return true }
        let (clock, leavings) = (clock, leavings)
        let left = await withTaskGroup(of: Bool.self) { group in
            group.addTask {
                do { try await clock.sleep(for: duration) } catch { return false }
                return false
            }
            group.addTask {
                for await _ in leavings { return true }
                return false
            }
            let first = await group.next() ?? false
            group.cancelAll()
            return first
        }
        return left || hasStoppedWaiting
    }

    /// Esc on the sheet: the controller dismisses it. Returns whether a payment was authorized on it, which decides
    /// what closing leaves behind.
    func close() async -> Bool {
        await controller.dismiss()
        return didAuthorize
    }

    /// The order is paid and the thank-you screen is up: the sheet goes away without a word.
    func closeAfterPayment() async {
        await controller.dismiss()
    }

    // MARK: Delegate

    public func paymentAuthorizationController(_ controller: any PaymentAuthorizationControlling, didSelectPaymentMethod method: PaymentMethod) async
        -> PaymentRequestUpdate
    {
        PaymentRequestUpdate(summaryItems: summary())
    }

    public func paymentAuthorizationController(_ controller: any PaymentAuthorizationControlling, didSelectShippingContact contact: Contact) async
        -> ShippingContactUpdate
    {
        ShippingContactUpdate(summaryItems: summary(), errors: CheckoutSheet.contactErrors(for: contact, shop))
    }

    public func paymentAuthorizationController(_ controller: any PaymentAuthorizationControlling, didSelectShippingMethod method: ShippingMethod)
        async -> PaymentRequestUpdate
    {
        shippingMethod = method
        return PaymentRequestUpdate(summaryItems: summary())
    }

    /// The payment was authorized: the sheet says "Processing…" while the order is placed.
    public func paymentAuthorizationController(_ controller: any PaymentAuthorizationControlling, didAuthorizePayment payment: Payment) async
        -> PaymentAuthorizationResult
    {
        didAuthorize = true
        processing?()
        let hooks = PlacementHooks(
            showBankCheck: { [weak self] url in self?.bankCheckShown?(url) },
            showChecking: { [weak self] in self?.checkingShown?() },
            waitOrLeave: { [weak self] duration in await self?.waitOrLeave(duration) ?? true }
        )
        let (outcome, attempt) = await placement.place(payment, after: attempt, hooks: hooks)
        self.attempt = attempt
        placed = outcome
        switch outcome {
        case .paid: return .success
        case .notPaid(let why): return .failure(why)
        }
    }

    /// The sheet went away: `close()` or `closeAfterPayment()` asked for it, and says what follows.
    public func paymentAuthorizationControllerDidFinish(_ controller: any PaymentAuthorizationControlling) async {}

    private func summary() -> [SummaryItem] {
        CheckoutSheet.summaryItems(lines: placement.order.lines, shipping: shippingMethod, shop)
    }
}
