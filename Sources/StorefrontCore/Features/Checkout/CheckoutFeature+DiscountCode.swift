import ShopModels
import ShopPorts

/// A discount code on the payment sheet: Enter on the "Code" row opens a field, the code is looked up and worked out
/// against the order, and the summary shows it as a line of its own with the total after it, in the same frame.
///
/// Order of calls: `openDiscountCodeForm` → the form's submit → `submitDiscountCode` (looks the code and its uses up)
/// → `.discountChecked` → `discountChecked` (applies it, or says in one line why not). Whether a use is left is decided
/// again when the order is placed, in the transaction that holds it.
extension CheckoutFeature {
    /// Unknown codes a session may try before the field stops taking them: enough for typos, too few to guess codes.
    public static let unknownCodeTries = 10

    static func openDiscountCodeForm(_ state: inout State) {
        state.shell.presentForm(DiscountCodeForm.make(current: state.checkout?.discount?.code))
    }

    /// The code typed in the field: empty takes the code off; anything else is looked up.
    static func submitDiscountCode(_ state: inout State, _ typed: String, _ env: ShopEnvironment) -> Effect {
        guard state.checkout != nil else { return .none }
        if typed.trimmingCharacters(in: .whitespaces).isEmpty {
            state.shell.dismissForm()
            guard let removed = state.checkout?.discount else { return .none }
            state.checkout?.discount = nil
            refreshDiscount(&state, env)
            state.shell.notice = Notice(.info, "Took the code \(removed.code) off.")
            return .none
        }
        guard state.unknownCodes < unknownCodeTries else {
            state.shell.form?.fail("Too many codes that are not this shop's: try again in a new session.", field: "code")
            return .none
        }
        guard let discounts = env.dependencies.discounts else { return discountChecked(&state, .failure(.unknown), env) }
        state.shell.form?.isBusy = true
        state.shell.form?.status = "Checking the code…"
        state.shell.form?.isStatusError = false
        let (customer, now) = (state.customerID, env.dependencies.accounts.dates.now())
        return .run(id: .discountCode) { send in
            let answer: Result<DiscountCode, DiscountRefusal>
            do throws(DiscountCodeError) {
                answer = try await discounts.check(typed, customer: customer, at: now)
            } catch {
                send(.form(.failed(message: "The code could not be checked: \(error)", field: "code")))
                return
            }
            send(.checkout(.discountChecked(answer)))
        }
    }

    /// The code as looked up: worked out against the order's lines and shipping, or why it does not apply.
    static func discountChecked(_ state: inout State, _ answer: Result<DiscountCode, DiscountRefusal>, _ env: ShopEnvironment) -> Effect {
        // The field is gone (the sheet closed meanwhile): the code is not wanted any more.
        guard let checkout = state.checkout, state.shell.form?.purpose == .discountCode else { return .none }
        let amounts = answer.flatMap { code in
            code.priced(in: env.shopProfile.currency, exchange: checkout.exchange).amounts(
                on: checkout.order.lines, shipping: checkout.shippingCost(env.shopProfile)
            ).map { (code, $0) }
        }
        switch amounts {
        case .failure(let refusal):
            if refusal == .unknown { state.unknownCodes += 1 }
            state.shell.form?.fail(refusal.words, field: "code")
        case .success(let (code, applied)):
            let before = state.checkout?.discount
            state.checkout?.discount = code
            refreshDiscount(&state, env)
            // A code that leaves too little for a card to pay is refused here, before Pay, and the sheet kept as it was.
            if let total = state.sheet?.summaryItems.last?.amount, let refusal = Self.tooLittleToPay(total, env) {
                state.checkout?.discount = before
                refreshDiscount(&state, env)
                state.shell.form?.fail(refusal.words, field: "code")
                return .none
            }
            state.shell.dismissForm()
            state.shell.notice = Notice(.info, "The code \(code.code) takes \(applied.total) off.")
        }
        return .none
    }

    /// Why a card cannot pay `total`, the order's with a code: nothing left, or under the provider's smallest charge.
    static func tooLittleToPay(_ total: Money, _ env: ShopEnvironment) -> DiscountRefusal? {
        if total.minorUnits <= 0 { return .leavesTooLittle(total: total, why: nil) }
        return env.dependencies.paymentProvider.chargeRefusal(total).map { .leavesTooLittle(total: total, why: $0) }
    }

    /// The summary and the rows after the code or the shipping changed.
    static func refreshDiscount(_ state: inout State, _ env: ShopEnvironment) {
        CheckoutSheet.recompute(&state, env.shopProfile)
        CheckoutSheet.refreshRows(&state, env)
    }
}

/// The field the "Code" row opens.
@MainActor
enum DiscountCodeForm {
    static func make(current: String?) -> FormState {
        FormState(
            purpose: .discountCode, title: "Discount code",
            message: current == nil ? "Enter the code as you were given it." : "Enter another code, or clear the field to take \(current ?? "") off.",
            fields: [FormState.Field(id: "code", label: "Code", value: current ?? "", hint: "letters, digits and dashes")],
            submitLabel: "Apply"
        )
    }
}
