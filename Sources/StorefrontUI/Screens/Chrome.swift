import ShopLanguages
import ShopModels
import StorefrontCore

/// The rows around every screen: header, title, notice and footer, and the too-small message.
extension Layout {
    static func drawTooSmall(_ p: inout Painter) {
        let size = p.size
        // How to leave is never cut: the other lines wrap, then give way to it, as the window shrinks.
        let quits = p.tr("q quits")
        let enlarge = p.tr("Enlarge the window, or press q to quit.")
        let halves = [p.tr("Enlarge the window,"), p.tr("or press q to quit.")]
        let leave =
            p.width(enlarge) <= size.columns ? [enlarge] : halves.allSatisfy({ p.width($0) <= size.columns }) ? halves : [quits]
        let candidates = [
            [p.tr("Terminal too small"), p.tr("Need \(Size.minimum.columns)x\(Size.minimum.rows), have \(size.columns)x\(size.rows).")] + leave,
            [p.tr("Terminal too small")] + leave,
            [p.tr("Too small")] + leave,
            leave,
            [quits],
        ]
        var lines = [quits]
        for candidate in candidates {
            let wrapped = candidate.flatMap { p.wrapped($0, width: size.columns) }
            if wrapped.count <= size.rows && wrapped.allSatisfy({ p.width($0) <= size.columns }) {
                lines = wrapped
                break
            }
        }
        let top = max(0, (size.rows - lines.count) / 2)
        for (offset, line) in lines.enumerated() where top + offset < size.rows {
            let text = p.truncated(line, to: size.columns)
            let column = max(0, (size.columns - p.width(text)) / 2)
            p.put(text, column: column, row: top + offset, style: offset == 0 ? Style(.error, bold: true) : .normal)
        }
    }

    static func drawHeader(_ state: StorefrontState, _ p: inout Painter) {
        let header = HeaderContent(
            shopName: state.shopName, shopperLabel: state.shopperLabel, badge: state.cartBadge, isConsole: state.merchant != nil)
        p.region(Self.headerRow, rows: 0..<1, content: header) { p in drawShopRow(header, &p) }
        let title = TitleContent(title(for: state, p))
        p.region(Self.titleRow, rows: 1..<2, content: title) { p in
            p.putSpread(
                " " + title.left, title.right + " ", column: 0, row: 1, width: p.size.columns, leftStyle: Style(.title, bold: true),
                rightStyle: Style(.dim))
        }
    }

    static let headerRow = RegionID("header")
    static let titleRow = RegionID("title")
    static let footerRow = RegionID("footer")

    /// The top row: the shop's name, and the shopper and the cart at the right.
    private static func drawShopRow(_ header: HeaderContent, _ p: inout Painter) {
        let style = Style(.header, bold: true)
        p.fill(row: 0, style: style)
        guard !header.isConsole else {
            p.putSpread(
                " \(header.shopName) \(p.glyphs.separator) merchant console", p.tr(header.shopperLabel) + " ", column: 0, row: 0,
                width: p.size.columns,
                leftStyle: style, rightStyle: style)
            return
        }
        let badge = header.badge
        let cart =
            badge.itemCount == 0
            ? p.tr("cart: empty")
            : p.tr(.plural("cart: \(badge.itemCount) item", "cart: \(badge.itemCount) items", count: badge.itemCount))
                + " \(p.glyphs.separator) \(p.money(badge.subtotal))"
        let right = "\(p.tr(header.shopperLabel)) \(p.glyphs.separator) \(cart) "
        // On a narrow terminal the cart wins over the shopper's name.
        let fits = p.width(" \(header.shopName)") + 2 + p.width(right) <= p.size.columns
        p.putSpread(" \(header.shopName)", fits ? right : cart + " ", column: 0, row: 0, width: p.size.columns, leftStyle: style, rightStyle: style)
    }

    static func title(for state: StorefrontState, _ p: Painter) -> (left: String, right: String) {
        switch state.screen {
        case .productList:
            let list = state.productList
            let counted = list.totalCount == 0 ? p.tr("0 of 0") : p.tr("\(list.selectedIndex + 1) of \(list.totalCount)")
            // The rows on screen stay while a read is pending; the title says one is.
            let range = list.isLoading ? "\(p.glyphs.ellipsis) " + p.tr("loading \(counted)") : counted
            if list.isEditingQuery || !list.query.isEmpty {
                let cursor = list.isEditingQuery ? "_" : ""
                return (p.tr("Search: \(list.query)") + cursor, range)
            }
            return (p.tr("Products"), range)
        case .productDetail: return (p.tr("Product"), state.productDetail.map { $0.product.id.rawValue } ?? "")
        case .cart:
            let lines = state.cart.lines.count
            return (p.tr("Your cart"), lines == 0 ? "" : p.tr(.plural("\(lines) line", "\(lines) lines", count: lines)))
        case .paymentSheet: return (p.tr("Checkout"), p.tr(state.paymentMode.words))
        case .confirmation: return (p.tr("Order placed"), "")
        case .orders: return (p.tr("Your orders"), loading(state.orders.isLoading, p) + p.tr("\(state.orders.totalCount) total"))
        case .orderDetail: return (p.tr("Order \(state.orderDetail?.number ?? "")"), "")
        case .account: return (p.tr("Your account"), state.account.isSignedIn ? p.tr("signed in") : p.tr("guest"))
        case .subscriptions:
            let list = state.subscriptions
            return (p.tr("Your subscriptions"), loading(list.isLoading, p) + p.tr("\(list.rows.count) total"))
        case .cardLink: return (p.tr("Add a card"), p.tr("on the payment service's page"))
        case .form:
            guard let form = state.form else { return ("", "") }
            return (p.tr(form.title), form.fields.isEmpty ? p.tr("open the link") : p.tr("field \(form.focusedIndex + 1) of \(form.fields.count)"))
        case .merchantQueue:
            let queue = state.merchant?.queue ?? OrderListState()
            let counted = queue.totalCount == 0 ? "0 of 0" : "\(queue.selectedIndex + 1) of \(queue.totalCount)"
            return (
                "Orders \(p.glyphs.separator) \(state.merchant?.filter.title ?? "")",
                (queue.isLoading ? "\(p.glyphs.ellipsis) loading " : "") + counted
            )
        case .merchantOrder: return ("Order \(state.merchant?.dossier?.order.number ?? "")", state.merchant?.dossier?.order.status.displayName ?? "")
        case .merchantRefund: return ("Refund \(state.merchant?.refund?.order.number ?? "")", "")
        case .merchantStock:
            let stock = state.merchant?.stock ?? MerchantStockState()
            return (
                "Stock",
                stock.isLowOnly ? "at or under \(stock.lowThreshold) on hand" : "\(stock.levels.count) product\(stock.levels.count == 1 ? "" : "s")"
            )
        case .merchantSales: return ("Sales", "")
        case .merchantCatalog:
            let catalog = state.merchant?.catalog ?? MerchantCatalogState()
            let published = catalog.products.filter { $0.status == .published }.count
            return ("Catalog", catalog.isLoading && catalog.products.isEmpty ? "" : "\(published) of \(catalog.products.count) in the shop")
        case .merchantDiscounts:
            let codes = state.merchant?.discounts.codes ?? []
            let paused = codes.filter(\.code.isPaused).count
            return ("Discount codes", "\(codes.count) code\(codes.count == 1 ? "" : "s")" + (paused > 0 ? ", \(paused) paused" : ""))
        case .merchantCustomers:
            let screen = state.merchant?.customers ?? MerchantCustomersState()
            let found = screen.query.isEmpty ? "" : "\(screen.matches.count) found"
            return (screen.query.isEmpty ? "Customers" : "Customers \(p.glyphs.separator) \(screen.query)", loading(screen.isLoading, p) + found)
        case .merchantCustomer:
            let page = state.merchant?.customers.page
            return ("Customer", page.map { $0.name ?? $0.customerID } ?? "")
        case .merchantSubscriptions:
            let screen = state.merchant?.subscriptions ?? MerchantSubscriptionsState()
            let goods = screen.upcomingGoods.map(p.money).joined(separator: " + ")
            return (
                "Subscriptions \(p.glyphs.separator) \(screen.filter.map(MerchantSubscriptionsState.title) ?? "all")",
                "\(screen.upcomingCount) renewal\(screen.upcomingCount == 1 ? "" : "s") in \(MerchantSubscriptionsState.upcomingDays) days"
                    + (goods.isEmpty ? "" : ", \(goods) of goods")
            )
        }
    }

    /// "… loading " before a count while a read is pending.
    private static func loading(_ isLoading: Bool, _ p: Painter) -> String {
        isLoading ? "\(p.glyphs.ellipsis) " + p.tr("loading") + " " : ""
    }

    static func drawNotice(_ state: StorefrontState, _ p: inout Painter) {
        let row = p.size.rows - 2
        if let notice = state.notice {
            let style = notice.kind == .error ? Style(.error, bold: true) : Style(.success)
            p.put(" " + p.tr(notice.text), column: 0, row: row, style: style)
        }
    }

    static func drawFooter(_ state: StorefrontState, _ p: inout Painter) {
        let row = p.size.rows - 1
        // Indices into `KeyBindings.table`.
        let shown = KeyBindings.footerIndices(for: state)
        p.region(Self.footerRow, rows: row..<(row + 1), content: shown) { p in
            drawFooter(shown.map { KeyBindings.table[$0] }, row: row, &p)
        }
    }

    private static func drawFooter(_ bindings: [KeyBinding], row: Int, _ p: inout Painter) {
        p.fill(row: row, style: Style(.dim))
        // Help and quit always fit: the other hints are dropped from the end when space runs out.
        let fixed = bindings.filter(\.isAlwaysInFooter)
        let optional = bindings.filter { !$0.isAlwaysInFooter }
        func hintWidth(_ b: KeyBinding) -> Int { p.width(p.keyName(b.label)) + 1 + p.width(p.tr(b.summary)) + 2 }
        var budget = p.size.columns - 1 - fixed.reduce(0) { $0 + hintWidth($1) }
        var shown: [KeyBinding] = []
        for binding in optional where hintWidth(binding) <= budget {
            shown.append(binding)
            budget -= hintWidth(binding)
        }
        var column = 1
        for binding in shown + fixed {
            let start = column
            column += p.put(p.keyName(binding.label), column: column, row: row, style: Style(.key, bold: true))
            column += p.put(" " + p.tr(binding.summary) + "  ", column: column, row: row, style: Style(.dim))
            // A click on a hint does what it says: the hint's first key, through the same table.
            if let key = binding.keys.first { p.target(.key(key), row: row, columns: start..<(column - 2)) }
        }
    }
}

/// The title row's two sides.
struct TitleContent: Equatable, Sendable {
    var left: String
    var right: String
    init(_ sides: (left: String, right: String)) {
        left = sides.left
        right = sides.right
    }
}

/// Everything the top row shows.
struct HeaderContent: Equatable, Sendable {
    var shopName: String
    var shopperLabel: Localized
    var badge: CartBadge
    /// The merchant console: its name instead of the cart.
    var isConsole = false
}
