import AddressFormats
import Foundation
import ShopApplication
import ShopLanguages
import ShopModels
import ShopPorts

/// What the sheet shows and asks for, worked out from the shop's profile: the request, the summary,
/// the rows, the choosers and what the shop cannot accept about a contact.
@MainActor
enum CheckoutSheet {
    static func paymentRequest(lines: [CartLine], shipping: ShippingMethod, quote: ShippingQuote, _ shop: ShopProfile) -> PaymentRequest {
        PaymentRequest(
            merchantIdentifier: shop.merchantIdentifier, merchantName: shop.name, countryCode: shop.countryCode,
            currency: shop.currency, supportedNetworks: shop.supportedNetworks,
            merchantCapabilities: [.threeDSecure, .credit, .debit],
            summaryItems: summaryItems(lines: lines, shipping: shipping, tax: quote.tax, shop),
            shippingMethods: quote.methods, requiredShippingContactFields: [.name, .email, .postalAddress]
        )
    }

    /// Subtotal, the discount code's line (what it takes off, as a negative amount), shipping, tax ("Sales tax", "HST",
    /// "incl. VAT 19%"), then the total labelled with the merchant's name.
    nonisolated static func summaryItems(
        lines: [CartLine], shipping: ShippingMethod, tax: TaxPolicy, _ shop: ShopProfile, discount: DiscountCode? = nil
    ) -> [SummaryItem] {
        let cart = Cart(currency: shop.currency, lines: lines)
        let applied = Self.applied(discount, lines: lines, shipping: shipping, shop)
        let totals = cart.totals(shipping: shipping, tax: tax, discount: applied)
        let off = applied.map { [SummaryItem(label: discountLabel($0.code), amount: .zero(shop.currency) - $0.total)] } ?? []
        return [SummaryItem(label: Localized("Subtotal"), amount: totals.subtotal)] + off + [
            SummaryItem(label: Localized("Shipping (\(shipping.label))"), amount: totals.shipping),
            SummaryItem(label: tax.summaryWords, amount: totals.tax, kind: tax.isIncluded ? .included : .final),
            SummaryItem(label: .verbatim(shop.name), amount: totals.total),
        ]
    }

    /// What `discount` takes off `lines` shipped by `shipping`; nil without a code, or for one that does not apply to them.
    nonisolated static func applied(_ discount: DiscountCode?, lines: [CartLine], shipping: ShippingMethod, _ shop: ShopProfile) -> AppliedDiscount? {
        guard let discount else { return nil }
        let shipped = shipping.cost(forSubtotal: lines.subtotal(in: shop.currency))
        return try? discount.amounts(on: lines, shipping: shipped).get()
    }

    /// The summary's line of a discount code; the "Code" row reads what the code takes off from it.
    nonisolated static func discountLabel(_ code: String) -> Localized { Localized("Discount \(code)") }

    /// The summary from the checkout's lines, shipping, tax and code: after any of them changed.
    static func recompute(_ state: inout CheckoutFeature.State, _ shop: ShopProfile) {
        guard let checkout = state.checkout else { return }
        state.sheet?.summaryItems = summaryItems(
            lines: checkout.order.lines, shipping: checkout.shippingMethod, tax: checkout.quote.tax, shop, discount: checkout.pricedDiscount)
    }

    /// The method a quote offers in place of `current`: the same one where offered, else the cheapest for One-Tap and
    /// the first otherwise; nil when it offers none.
    nonisolated static func method(in quote: ShippingQuote, keeping current: ShippingMethod?, cheapest: Bool, subtotal: Money) -> ShippingMethod? {
        if let current, let same = quote.methods.first(where: { $0.id == current.id }) { return same }
        guard cheapest else { return quote.methods.first }
        return quote.methods.min { $0.cost(forSubtotal: subtotal).minorUnits < $1.cost(forSubtotal: subtotal).minorUnits }
    }

    /// The ship-to address decides the market: in another one, the order's lines are priced in its currency, the
    /// shopper is told, and the environment of that market is what the sheet works with from here.
    static func followShipTo(_ state: inout CheckoutFeature.State, _ env: ShopEnvironment) -> ShopEnvironment {
        guard let markets = env.dependencies.markets, let checkout = state.checkout, let address = checkout.shipTo?.address,
            let market = markets.market(for: address), market.id != state.shell.market
        else { return env }
        let before = env.shopProfile.currency
        // Lines, quote and method move together: nothing on the sheet is left in the other currency.
        let shop = markets.shop(in: market)
        let lines = checkout.order.lines.map { markets.line($0, in: market) }
        let cart = Cart(currency: shop.currency, lines: lines)
        guard let quote = shop.quote(for: cart, to: address),
            let method = method(in: quote, keeping: checkout.shippingMethod, cheapest: checkout.oneTap, subtotal: cart.subtotal)
        else { return env }
        state.checkout?.order.lines = lines
        state.checkout?.quote = quote
        state.checkout?.shippingMethod = method
        state.checkout?.exchange = markets.exchange(in: market)
        state.shell.market = market.id
        if market.currency != before {
            let country = AddressFormats.format(for: address.countryCode)?.name ?? address.countryCode
            state.shell.notice = Notice(.info, "Prices are in \(market.currency.code) now: \(country) buys in \(market.name).")
        }
        return env.inMarket(market.id)
    }

    /// The ship-to address decides the region: its methods priced for the order, its tax and the total, all in the
    /// same frame, as Apple Pay's sheet recomputes on `didSelectShippingContact`; then the contact is checked against
    /// that same quote. An address the shop does not ship to keeps the last figures; its row's error says where the
    /// shop ships and holds Pay.
    static func shippingContactChanged(_ state: inout CheckoutFeature.State, _ shop: ShopProfile) {
        guard var checkout = state.checkout else { return }
        let cart = Cart(currency: shop.currency, lines: checkout.order.lines)
        let quote = checkout.shipTo.map { shop.quote(for: cart, to: $0.address) } ?? shop.estimate(for: cart)
        if let quote, let method = method(in: quote, keeping: checkout.shippingMethod, cheapest: checkout.oneTap, subtotal: cart.subtotal) {
            checkout.quote = quote
            checkout.shippingMethod = method
            state.checkout = checkout
            recompute(&state, shop)
        }
        // As Apple's sheet does, the contact is checked before anything can be paid.
        if let contact = checkout.shippingContact { setRowErrors(&state, contactErrors(for: contact, quote: quote, shop)) }
    }

    /// The "Every" row: the interval, when the next delivery comes, and what each renewal costs at today's prices
    /// (this order's total without its code, which takes off the first charge only).
    static func scheduleLine(_ plan: SubscriptionPlan, _ checkout: Checkout, _ shop: ShopProfile, today: Date?) -> Localized {
        let renewal = summaryItems(lines: checkout.order.lines, shipping: checkout.shippingMethod, tax: checkout.quote.tax, shop).last?.amount
        let weeks = plan.everyWeeks
        var line = RenewalSchedule.everyWords(weeks)
        if let today {
            line = Localized("\(line) · next \(day: today.addingTimeInterval(Double(weeks) * RenewalSchedule.week))")
        }
        return renewal.map { Localized("\(line) · then \($0) each") } ?? line
    }

    /// The sheet's lines, as the Items row lists them: a subscription's with its schedule.
    nonisolated static func items(_ checkout: Checkout, today: Date?) -> [SheetItem] {
        let schedule = checkout.order.subscription.map { RenewalSchedule.scheduleWords(everyWeeks: $0.everyWeeks, today: today) }
        return checkout.order.lines.map {
            SheetItem(title: .untranslated("\($0.quantity) × \($0.name)"), amount: $0.total, schedule: schedule)
        }
    }

    /// The Items row folded to one line: the one line bought, or how many items.
    nonisolated static func itemsLine(_ lines: [CartLine]) -> Localized {
        if lines.count == 1, let line = lines.first { return .untranslated("\(line.quantity) × \(line.name)") }
        return PaymentSheetState.itemCount(lines.reduce(0) { $0 + $1.quantity })
    }

    /// Each row's current choice in words, and whether every row has one.
    static func refreshRows(_ state: inout CheckoutFeature.State, _ env: ShopEnvironment) {
        guard let checkout = state.checkout, var sheet = state.sheet else { return }
        let discountLine = checkout.discount.flatMap { code in sheet.summaryItems.first { $0.label == discountLabel(code.code) } }
        let today = env.dependencies.subscriptions?.dates.now()
        sheet.rowValues = [
            .discountCode: discountLine.map {
                Localized("\(checkout.discount?.code ?? "") · \(.zero($0.amount.currency) - $0.amount) off")
            }
                ?? Localized("Add a code"),
            .card: checkout.card.map { .verbatim("\($0.shortName)  \($0.displayName)") } ?? Localized("Choose a card"),
            .shippingAddress: checkout.shipTo.map { .verbatim($0.shipToLine) } ?? Localized("Choose an address"),
            .shippingMethod: .verbatim("\(checkout.shippingMethod.label) · \(checkout.shippingMethod.detail)"),
            // Whose email gets the receipt, said where it is chosen: the one rule of every front (docs/mail.md).
            .contact: checkout.contact.map {
                $0.phone.isEmpty ? Localized("Receipt to \($0.email)") : Localized("Receipt to \($0.email) · \($0.phone)")
            }
                ?? Localized("Choose a contact"),
        ]
        if let plan = checkout.order.subscription { sheet.rowValues[.schedule] = scheduleLine(plan, checkout, env.shopProfile, today: today) }
        sheet.items = items(checkout, today: today)
        sheet.itemQuantity = checkout.order.lines.reduce(0) { $0 + $1.quantity }
        sheet.rowValues[.items] = itemsLine(checkout.order.lines)
        sheet.unchosenRows = [
            (PaymentSheetRow.card, checkout.card == nil), (.shippingAddress, checkout.shipTo == nil), (.contact, checkout.contact == nil),
        ]
        .filter(\.1).map(\.0)
        if let marked = sheet.markedRow, sheet.attention?.row != marked { sheet.markedRow = nil }
        state.sheet = sheet
    }

    /// The chooser Enter opens over `row`; the Items row lists the sheet's `items` to read.
    static func chooser(for row: PaymentSheetRow, _ checkout: Checkout, _ shop: ShopProfile, items: [SheetItem] = []) -> ChooserState {
        let options = checkout.options
        switch row {
        case .card:
            let choices = options.paymentMethods.map { ChooserState.Option(title: .verbatim($0.shortName), detail: .verbatim($0.displayName)) }
            return ChooserState(
                row: row, options: choices, selectedIndex: options.paymentMethods.firstIndex { $0.id == checkout.card?.id } ?? 0,
                addTitle: Localized("Add a new card"))
        case .shippingAddress:
            let choices = options.contacts.map { ChooserState.Option(title: .verbatim($0.name), detail: .verbatim($0.address.singleLine)) }
            return ChooserState(
                row: row, options: choices, selectedIndex: options.contacts.firstIndex { $0.id == checkout.shipTo?.id } ?? 0,
                addTitle: Localized("Add a new address"))
        case .shippingMethod:
            let subtotal = checkout.order.lines.subtotal(in: shop.currency)
            let methods = checkout.quote.methods
            let choices = methods.map {
                ChooserState.Option(title: .untranslated("\($0.label) · \($0.cost(forSubtotal: subtotal))"), detail: .verbatim($0.detail))
            }
            return ChooserState(row: row, options: choices, selectedIndex: methods.firstIndex { $0.id == checkout.shippingMethod.id } ?? 0)
        case .discountCode:
            return ChooserState(row: row, options: [], selectedIndex: 0)
        case .items:
            // A list to read, not to choose from: Enter or Esc closes it.
            let choices = items.map { item in
                ChooserState.Option(
                    title: item.title, detail: item.schedule.map { Localized("\(item.amount) · \($0)") } ?? .untranslated("\(item.amount)"))
            }
            return ChooserState(row: row, options: choices, selectedIndex: 0)
        case .schedule:
            let plan = checkout.order.subscription
            let choices = (plan?.offered ?? []).map {
                ChooserState.Option(title: Localized("Every \(RenewalSchedule.everyWords($0))"), detail: .verbatim(""))
            }
            return ChooserState(row: row, options: choices, selectedIndex: plan.flatMap { $0.offered.firstIndex(of: $0.everyWeeks) } ?? 0)
        case .contact:
            let choices = options.contacts.map {
                ChooserState.Option(title: $0.email.isEmpty ? Localized("(no email)") : .verbatim($0.email), detail: .verbatim($0.phone))
            }
            return ChooserState(
                row: row, options: choices, selectedIndex: options.contacts.firstIndex { $0.id == checkout.contact?.id } ?? 0,
                addTitle: Localized("Add a new contact"))
        }
    }

    /// Shows each contact error next to its row: name and address by "Ship to", email and phone by "Contact".
    static func setRowErrors(_ state: inout CheckoutFeature.State, _ contactErrors: [ContactFieldError]) {
        var errors: [PaymentSheetRow: Localized] = [:]
        for error in contactErrors {
            let row: PaymentSheetRow = error.field == .postalAddress || error.field == .name ? .shippingAddress : .contact
            let message = error.message
            errors[row] = errors[row].map { Localized("\($0) \(message)") } ?? message
        }
        state.sheet?.rowErrors = errors
    }

    /// What the shop cannot accept about a shipping contact whose address was quoted `quote` (nil: no region takes
    /// it): the address form's checks, then where the shop ships and whether any method there takes the order's weight.
    nonisolated static func contactErrors(for contact: Contact, quote: ShippingQuote?, _ shop: ShopProfile) -> [ContactFieldError] {
        let problems = AddressEntry(contact).problems()
        var errors = AddressField.allCases.compactMap { field in
            problems[field].map { ContactFieldError(field: field.contactField, message: $0) }
        }
        guard problems[.country] == nil, problems[.region] == nil else { return errors }
        if quote == nil, let elsewhere = shop.shippingRefusal(address: contact.address) {
            errors.append(ContactFieldError(field: .postalAddress, message: elsewhere))
        } else if quote?.methods.isEmpty == true {
            errors.append(ContactFieldError(field: .postalAddress, message: .lookup(PlaceOrder.DraftRefusal.noSuchMethod(offered: []).message)))
        }
        return errors
    }
}
