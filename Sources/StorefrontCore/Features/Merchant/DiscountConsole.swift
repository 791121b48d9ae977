import ShopLanguages
import ShopModels
import ShopPorts

/// A discount code and its uses held, as the console lists it.
public struct DiscountListing: Equatable, Sendable {
    public var code: DiscountCode
    public var uses: Int
    /// Its terms in words, made once as the list is read rather than at every frame that draws it.
    public let summary: String

    public init(code: DiscountCode, uses: Int) {
        self.code = code
        self.uses = uses
        summary = code.summary
    }
}

/// The discount codes screen: every code, its terms and uses, and the one chosen.
public struct MerchantDiscountsState: Equatable, Sendable {
    public var codes: [DiscountListing] = []
    public var selectedIndex = 0
    public var isLoading = false

    public init() {}

    public var selected: DiscountListing? { codes[safe: selectedIndex] }
}

/// The console's discount codes (`5`): `n` makes one in a form checked as `storefront discounts create` checks its
/// options, `p` pauses or resumes the chosen one, `x` deletes it while no order used it.
///
/// Order of calls for a new code: `n` → `DiscountTermsForm` → `submitDiscountForm` (the terms checked) → the codes'
/// store → `.discountChanged` → the list read again.
extension MerchantFeature {
    static func showDiscounts(_ state: inout State, _ env: ShopEnvironment) -> Effect {
        state.shell.route = [.merchantQueue, .merchantDiscounts]
        return reloadDiscounts(&state, env)
    }

    static func reloadDiscounts(_ state: inout State, _ env: ShopEnvironment) -> Effect {
        guard let discounts = env.dependencies.discounts else {
            state.shell.notice = Notice(.error, "This console keeps no discount codes.")
            return .none
        }
        state.console.discounts.isLoading = true
        return .run(id: .merchantDiscounts) { send in
            do throws(DiscountCodeError) {
                let codes = try await discounts.all().map { DiscountListing(code: $0.code, uses: $0.uses) }
                send(.merchant(.discounts(.success(codes))))
            } catch {
                send(.merchant(.discounts(.failure(error))))
            }
        }
    }

    static func reduceDiscounts(_ state: inout State, _ action: Action, _ env: ShopEnvironment) -> Effect {
        let screen = state.console.discounts
        switch action {
        case .move(let move):
            state.console.discounts.selectedIndex = ListSelection.moved(
                screen.selectedIndex, by: move, count: screen.codes.count, page: state.rowCapacity)
        case .newDiscount:
            state.shell.presentForm(DiscountTermsForm.make(currency: env.shopProfile.currency))
        case .toggleDiscountPaused:
            guard let listing = screen.selected else { return .none }
            let (name, pausing) = (listing.code.code, !listing.code.isPaused)
            return changeDiscount(env) { discounts throws(DiscountCodeError) in
                guard try await discounts.setPaused(name, pausing) else { return "\(name) is gone: the list is read again." }
                return pausing ? "Paused \(name): it is refused like an unknown code until p resumes it." : "\(name) holds again."
            }
        case .deleteDiscount:
            guard let listing = screen.selected else { return .none }
            let name = listing.code.code
            return changeDiscount(env) { discounts throws(DiscountCodeError) in
                try await discounts.delete(name) ? "Deleted \(name)." : "\(name) is gone: the list is read again."
            }
        case .back:
            return showQueue(&state, env)
        case .confirm, .show, .newProduct, .togglePublished, .archive,
            .nextFilter,
            .previousFilter, .ship, .markDelivered, .cancelOrder, .refund, .increase, .decrease, .toggleRestock, .toggleLowStock, .search, .newNote:
            break
        }
        return .none
    }

    /// The new code's form submitted: the code filed, or each field's problem in place.
    static func submitDiscountForm(_ state: inout State, _ form: FormState, _ env: ShopEnvironment) -> Effect {
        switch DiscountTermsForm.code(form, currency: env.shopProfile.currency) {
        case .failure(let problem):
            state.shell.form?.fail(problem.message, field: DiscountTermsForm.fieldID(problem.field))
            return .none
        case .success(let code):
            state.shell.form?.isBusy = true
            state.shell.form?.status = "Saving…"
            state.shell.form?.isStatusError = false
            let (now, catalog) = (env.dependencies.accounts.dates.now(), env.dependencies.catalog)
            return changeDiscount(env) { discounts throws(DiscountCodeError) in
                try await discounts.create(code, at: now, checkingAgainst: catalog)
                return "Made \(code.code): \(code.summary)."
            }
        }
    }

    private static func changeDiscount(
        _ env: ShopEnvironment, _ change: @escaping @Sendable (any DiscountCodes) async throws(DiscountCodeError) -> String
    ) -> Effect {
        guard let discounts = env.dependencies.discounts else { return .none }
        return .run(id: .merchantChange) { send in
            do throws(DiscountCodeError) {
                send(.merchant(.discountChanged(.success(try await change(discounts)))))
            } catch {
                send(.merchant(.discountChanged(.failure(error))))
            }
        }
    }

    /// A change answered: told in the notice (a form saved closes; one refused says why in place), and the list read again.
    static func discountChanged(_ state: inout State, _ result: Result<String, DiscountCodeError>, _ env: ShopEnvironment) -> Effect {
        let fromForm = state.shell.form?.purpose == .discountTerms
        switch result {
        case .success(let told):
            if fromForm { state.shell.dismissForm() }
            state.shell.notice = Notice(.info, .lookup(told))
        case .failure(let error):
            guard !fromForm else {
                if case .exists = error {
                    state.shell.form?.fail("A code named so exists already.", field: "code")
                } else {
                    state.shell.form?.fail("\(error)", field: nil)
                }
                return .none
            }
            state.shell.notice = Notice(.error, "\(error)")
        }
        return reloadDiscounts(&state, env)
    }

    static func discountsRead(_ state: inout State, _ result: Result<[DiscountListing], DiscountCodeError>) {
        state.console.discounts.isLoading = false
        switch result {
        case .success(let codes):
            state.console.discounts.codes = codes
            state.console.discounts.selectedIndex = ListSelection.clamped(state.console.discounts.selectedIndex, count: codes.count)
        case .failure(let error):
            state.shell.notice = Notice(.error, "Could not read the discount codes: \(error)")
        }
    }
}

/// The form `n` opens on the discount codes screen: one field per option of `storefront discounts create`.
@MainActor
enum DiscountTermsForm {
    static func make(currency: Currency) -> FormState {
        FormState(
            purpose: .discountTerms, title: "New discount code",
            message: "Give one of percent, amount or free shipping; leave a limit empty for none. Dates are UTC (2026-12-01).",
            fields: [
                FormState.Field(id: "code", label: "Code", hint: "LAUNCH-10"),
                FormState.Field(id: "kind", label: "Takes off", options: ["percent", "amount", "free shipping"]),
                FormState.Field(id: "value", label: "How much", hint: "10 (percent) or 5.00 (\(currency.code))"),
                FormState.Field(id: "from", label: "From", hint: "a date or time, or empty"),
                FormState.Field(id: "until", label: "Until", hint: "a date or time, or empty"),
                FormState.Field(id: "uses", label: "Uses in all", hint: "a number, or empty"),
                FormState.Field(id: "perCustomer", label: "Uses each", hint: "a number, or empty"),
                FormState.Field(id: "minimum", label: "Minimum", hint: "goods of at least, in \(currency.code)"),
                FormState.Field(id: "only", label: "Only for", hint: "product ids or SKUs, commas between"),
            ],
            submitLabel: "Make code"
        )
    }

    /// The code the form describes, checked by `DiscountTerms` as the command checks its options.
    static func code(_ form: FormState, currency: Currency) -> Result<DiscountCode, DiscountTerms.Problem> {
        func text(_ id: String) -> String? {
            let value = form.value(id).trimmingCharacters(in: .whitespaces)
            return value.isEmpty ? nil : value
        }
        for id in ["uses", "perCustomer"] {
            if let typed = text(id), Int(typed) == nil {
                return .failure(DiscountTerms.Problem(field: id == "uses" ? .uses : .perCustomer, message: "Enter a whole number, or nothing."))
            }
        }
        let kind = form.value("kind")
        let terms = DiscountTerms(
            percent: kind == "percent" ? text("value") ?? "" : nil, amount: kind == "amount" ? text("value") ?? "" : nil,
            freeShipping: kind == "free shipping", from: text("from"), until: text("until"), uses: text("uses").flatMap { Int($0) },
            perCustomer: text("perCustomer").flatMap { Int($0) }, minimum: text("minimum"), only: text("only").map { [$0] } ?? [])
        return terms.code(form.value("code"), currency: currency) { field in
            form.fields.first { $0.id == fieldID(field) }?.label.description ?? field.rawValue
        }
    }

    /// The form's field a problem names.
    static func fieldID(_ field: DiscountTerms.Field) -> String {
        switch field {
        case .code: "code"
        case .percent, .amount, .freeShipping: "value"
        case .from: "from"
        case .until: "until"
        case .uses: "uses"
        case .perCustomer: "perCustomer"
        case .minimum: "minimum"
        case .only: "only"
        }
    }
}
