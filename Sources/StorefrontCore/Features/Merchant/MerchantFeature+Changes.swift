import Foundation
import ShopLanguages
import ShopModels
import ShopPorts

/// The console's changes: shipping (a form), a refund (lines, then an amount and a reason), delivering and
/// canceling, each shown as a prompt that Enter confirms; and the stock screen's counts.
///
/// Order of calls for a change: the key → a form or the refund screen where it needs entries → `ask` (the prompt)
/// → Enter → the back office → `changed` (the order shown again, the queue re-read).
extension MerchantFeature {
    static func presentShipForm(_ state: inout State) {
        state.shell.presentForm(
            FormState(
                purpose: .shipOrder, title: "Ship \(state.console.dossier?.order.number ?? "")",
                message: "Who carries the parcel, and how the shopper follows it.",
                fields: [
                    .init(id: "carrier", label: "Carrier", hint: "UPS"),
                    .init(id: "tracking", label: "Tracking number", hint: "1Z999AA10123456784"),
                    .init(id: "url", label: "Tracking URL", hint: "https://… (optional)"),
                ],
                submitLabel: "Ship"
            ))
    }

    /// A submitted console form: checked field by field, then the change it asks for is put to the merchant.
    static func submitForm(_ state: inout State, _ form: FormState, _ env: ShopEnvironment) -> Effect {
        switch form.purpose {
        case .shipOrder:
            var errors: [String: String] = [:]
            for id in ["carrier", "tracking"] where !MerchantEntry.isPlainLine(form.value(id)) {
                errors[id] = "Enter 1 to 100 characters on one line."
            }
            let url = form.value("url").trimmingCharacters(in: .whitespaces)
            if !url.isEmpty, !MerchantEntry.isWebAddress(url) {
                errors["url"] = "Enter a web address (https://…), or leave it empty."
            }
            guard errors.isEmpty else {
                state.shell.form?.showFieldErrors(errors.mapValues(Localized.lookup))
                return .none
            }
            state.shell.dismissForm()
            let parcel = Shipment(
                carrier: form.value("carrier").trimmingCharacters(in: .whitespaces),
                trackingNumber: form.value("tracking").trimmingCharacters(in: .whitespaces), trackingURL: url.isEmpty ? nil : url)
            ask(&state, .ship(parcel))
        case .refundDetails:
            guard let draft = state.console.refund else { return .none }
            let currency = draft.refundable.currency
            guard let amount = Money(typed: form.value("amount"), currency: currency), amount.minorUnits > 0 else {
                state.shell.form?.showFieldErrors(["amount": "Enter an amount such as \(draft.amount.plainAmount), more than nothing."])
                return .none
            }
            guard amount.minorUnits <= draft.refundable.minorUnits else {
                state.shell.form?.showFieldErrors(["amount": "At most \(draft.refundable.formatted) is left to refund."])
                return .none
            }
            guard MerchantEntry.isPlainLine(form.value("reason")) else {
                state.shell.form?.showFieldErrors(["reason": "Enter 1 to 100 characters on one line."])
                return .none
            }
            state.shell.dismissForm()
            ask(
                &state,
                .refund(RefundAsk(amount: amount, restock: draft.restockItems, reason: form.value("reason").trimmingCharacters(in: .whitespaces))))
        case .stockCount:
            guard let level = state.console.stock.shown[safe: state.console.stock.selectedIndex] else { return .none }
            guard let count = Int(form.value("count").trimmingCharacters(in: .whitespaces)), (0...1_000_000).contains(count) else {
                state.shell.form?.showFieldErrors(["count": "Enter a whole number from 0 to 1,000,000."])
                return .none
            }
            state.shell.dismissForm()
            return changeStock(level.productID, env) { office, product throws(BackOfficeError) in
                try await office.setStock(of: product, onHand: count)
            }
        case .productDetails:
            return submitProductForm(&state, form, env)
        case .discountTerms:
            return submitDiscountForm(&state, form, env)
        case .customerSearch, .customerNote:
            return submitCustomerForm(&state, form, env)
        case .signIn, .addCard, .addAddress, .apiToken, .discountCode:
            break
        }
        return .none
    }

    /// Puts `change` to the merchant, saying what it will do.
    static func ask(_ state: inout State, _ change: MerchantChange) {
        guard let dossier = state.console.dossier, let lifecycle = dossier.lifecycle else { return }
        let order = dossier.order
        let lines: [String] =
            switch change {
            case .ship(let parcel):
                [
                    "Ship \(order.number) with \(parcel.carrier), tracking \(parcel.trackingNumber)?",
                    parcel.trackingURL.map { "The shopper follows it at \($0)." } ?? "No tracking URL.",
                ]
            case .deliver: ["Mark \(order.number) delivered?"]
            case .cancel:
                [
                    "Cancel \(order.number)?",
                    "\(lifecycle.refundable.formatted) goes back to \(order.paymentDescription), and every line goes back in stock.",
                ]
            case .refund(let ask):
                [
                    "Refund \(ask.amount.formatted) of \(order.number) to \(order.paymentDescription)?",
                    ask.restock.isEmpty
                        ? "Nothing goes back in stock."
                        : "Back in stock: "
                            + ask.restock.map { item in
                                "\(item.quantity) × \(order.lines.first { $0.stockKey == item.productID }?.name ?? item.productID.rawValue)"
                            }.joined(separator: ", ") + ".",
                ]
            }
        state.console.prompt = MerchantPrompt(change: change, lines: lines)
    }

    /// Enter makes the change; Esc leaves it unmade. Keys wait while it is being made.
    static func reducePrompt(_ state: inout State, _ action: Action, _ env: ShopEnvironment) -> Effect {
        guard var prompt = state.console.prompt, !prompt.isWorking else { return .none }
        switch action {
        case .back:
            state.console.prompt = nil
            state.shell.notice = Notice(.info, "Nothing was changed.")
            return .none
        case .confirm:
            guard let office = env.dependencies.backOffice, let order = state.console.dossier?.order else { return .none }
            prompt.isWorking = true
            state.console.prompt = prompt
            let (change, number, status, actor) = (prompt.change, order.number, order.status, OrderActor.merchant(state.console.merchantName))
            return .run(id: .merchantChange) { send in
                do throws(BackOfficeError) {
                    let changed: Order =
                        switch change {
                        case .ship(let parcel): try await office.ship(number, parcel, by: actor, expecting: status)
                        case .deliver: try await office.markDelivered(number, by: actor, expecting: status)
                        case .cancel: try await office.cancel(number, reason: "canceled by the shop", by: actor, expecting: status)
                        case .refund(let ask): try await office.refund(number, ask, by: actor, expecting: status)
                        }
                    send(.merchant(.changed(change, .success(changed))))
                } catch {
                    send(.merchant(.changed(change, .failure(error))))
                }
            }
        case .move, .show, .newDiscount, .toggleDiscountPaused,
            .deleteDiscount,
            .newProduct, .togglePublished, .archive, .nextFilter, .previousFilter, .ship,
            .markDelivered, .cancelOrder, .refund, .increase,
            .decrease, .toggleRestock, .toggleLowStock, .search, .newNote:
            return .none
        }
    }

    /// The back office answered a change: the order is read again either way, so the screen shows what it is now.
    static func changed(_ state: inout State, _ change: MerchantChange, _ result: Result<Order, BackOfficeError>, _ env: ShopEnvironment) -> Effect {
        state.console.prompt = nil
        guard let number = state.console.dossier?.order.number else { return .none }
        switch result {
        case .success(let order):
            let told: String =
                switch change {
                case .ship: "\(order.number) is shipped."
                case .deliver: "\(order.number) is delivered."
                case .cancel: "\(order.number) is canceled and refunded in full."
                case .refund(let ask): "\(ask.amount.formatted) of \(order.number) is refunded."
                }
            state.shell.notice = Notice(.info, .lookup(told))
            state.console.refund = nil
            if state.shell.screen == .merchantRefund { state.shell.popScreen() }
        case .failure(let error):
            state.shell.notice = Notice(.error, "\(error)")
        }
        return readDossier(number, env)
    }

    static func reduceRefund(_ state: inout State, _ action: Action, _ env: ShopEnvironment) -> Effect {
        guard var draft = state.console.refund else { return .none }
        let lines = draft.order.lines
        do {
            switch action {
            case .move(let move):
                draft.selectedIndex = ListSelection.moved(draft.selectedIndex, by: move, count: lines.count)
            case .increase:
                if let line = lines[safe: draft.selectedIndex] {
                    draft.quantities[draft.selectedIndex] = min(line.quantity, draft.quantities[draft.selectedIndex] + 1)
                }
            case .decrease:
                if draft.quantities.indices.contains(draft.selectedIndex) {
                    draft.quantities[draft.selectedIndex] = max(0, draft.quantities[draft.selectedIndex] - 1)
                }
            case .toggleRestock:
                draft.restock.toggle()
            case .confirm:
                state.console.refund = draft
                let amount = draft.quantities.allSatisfy { $0 == 0 } ? "" : draft.amount.plainAmount
                state.shell.presentForm(
                    FormState(
                        purpose: .refundDetails, title: "Refund \(draft.order.number)",
                        message: "Up to \(draft.refundable.formatted) is left to refund. The amount may differ from the lines'.",
                        fields: [
                            .init(id: "amount", label: "Amount", value: amount, hint: .verbatim(draft.refundable.plainAmount)),
                            .init(id: "reason", label: "Reason", value: "requested by the customer"),
                        ],
                        submitLabel: "Refund"
                    ))
                return .none
            case .back:
                state.console.refund = nil
                state.shell.popScreen()
                return .none
            case .show, .newDiscount, .toggleDiscountPaused,
                .deleteDiscount, .newProduct,
                .togglePublished, .archive, .nextFilter, .previousFilter, .ship,
                .markDelivered, .cancelOrder, .refund, .toggleLowStock, .search, .newNote:
                return .none
            }
        }
        state.console.refund = draft
        return .none
    }

    static func reduceStock(_ state: inout State, _ action: Action, _ env: ShopEnvironment) -> Effect {
        var stock = state.console.stock
        let selected = stock.shown[safe: stock.selectedIndex]
        switch action {
        case .move(let move):
            state.console.stock.selectedIndex = ListSelection.moved(stock.selectedIndex, by: move, count: stock.shown.count, page: state.rowCapacity)
        case .back:
            state.shell.route = [.merchantQueue]
            return reloadQueue(&state, env)
        case .toggleLowStock:
            stock.isLowOnly.toggle()
            stock.selectedIndex = 0
            state.console.stock = stock
        case .increase, .decrease:
            guard let selected else { return .none }
            let change = action == .increase ? 1 : -1
            return changeStock(selected.productID, env) { office, product throws(BackOfficeError) in
                try await office.adjustStock(of: product, by: change)
            }
        case .confirm:
            guard let selected else { return .none }
            state.shell.presentForm(
                FormState(
                    purpose: .stockCount, title: "Stock of \(selected.name)",
                    message: "The count on the shelf, free to sell. \(selected.reserved) reserved and \(selected.sold) sold stay as they are.",
                    fields: [.init(id: "count", label: "On hand", value: String(selected.onHand))], submitLabel: "Set"
                ))
        case .show, .newDiscount, .toggleDiscountPaused,
            .deleteDiscount, .newProduct,
            .togglePublished, .archive, .nextFilter, .previousFilter, .ship,
            .markDelivered, .cancelOrder, .refund, .toggleRestock, .search, .newNote:
            break
        }
        return .none
    }

    private static func changeStock(
        _ product: ProductID, _ env: ShopEnvironment,
        _ body: @escaping @Sendable (any BackOffice, ProductID) async throws(BackOfficeError) -> StockLevel
    ) -> Effect {
        guard let office = env.dependencies.backOffice else { return .none }
        return .run { send in
            do throws(BackOfficeError) {
                send(.merchant(.stockChanged(.success(try await body(office, product)))))
            } catch {
                send(.merchant(.stockChanged(.failure(error))))
            }
        }
    }

    static func stockChanged(_ state: inout State, _ result: Result<StockLevel, BackOfficeError>, _ env: ShopEnvironment) -> Effect {
        switch result {
        case .success(let level):
            if let index = state.console.stock.levels.firstIndex(where: { $0.productID == level.productID }) {
                state.console.stock.levels[index] = level
            }
            state.shell.notice = Notice(.info, "\(level.name): \(level.onHand) on hand.")
        case .failure(let error):
            state.shell.notice = Notice(.error, "\(error)")
        }
        return .none
    }
}
