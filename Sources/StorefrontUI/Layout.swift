import Foundation
import StoreModels
import StorefrontCore

/// Lays out a state at a size: a pure function, the same inputs always give the same frame.
public func layout(_ state: StorefrontState, _ size: Size, charset: Charset = .unicode) -> Frame {
    Layout.frame(for: state, size: size, charset: charset)
}

/// The screen layouts. Rows: header, title, body, notice, footer.
public enum Layout {
    /// Rows outside the body: header, title, notice and footer.
    public static let chromeRows = 4

    /// How many list rows fit at `size`; the host sends this to the view model on every resize.
    public static func listRows(for size: Size) -> Int {
        max(1, size.rows - chromeRows)
    }

    /// Terminals wider than this show a preview pane beside the product list.
    static let previewThreshold = 100

    public static func frame(for state: StorefrontState, size: Size, charset: Charset) -> Frame {
        var painter = Painter(size: size, charset: charset)
        guard !size.isBelowMinimum else {
            drawTooSmall(&painter)
            return painter.frame
        }
        let body = BodyRect(top: 2, height: size.rows - chromeRows, width: size.columns)
        drawHeader(state, &painter)
        switch state.screen {
        case .productList: drawProductList(state, body, &painter)
        case .productDetail: drawProductDetail(state, body, &painter)
        case .cart: drawCart(state, body, &painter)
        case .paymentSheet: drawPaymentSheet(state, body, &painter)
        case .confirmation: drawConfirmation(state, body, &painter)
        case .orders: drawOrders(state, body, &painter)
        case .orderDetail: drawOrderDetail(state, body, &painter)
        case .account: drawAccount(state, body, &painter)
        case .form: drawForm(state, body, &painter)
        }
        if state.isHelpShown { drawHelp(state, body, &painter) }
        drawNotice(state, &painter)
        drawFooter(state, &painter)
        return painter.frame
    }

    struct BodyRect {
        var top: Int
        var height: Int
        var width: Int
        var bottom: Int { top + height }
    }

    // MARK: - Chrome

    private static func drawTooSmall(_ p: inout Painter) {
        let size = p.size
        let lines = [
            "Terminal too small",
            "Need \(Size.minimum.columns)x\(Size.minimum.rows), have \(size.columns)x\(size.rows).",
            "Enlarge the window, or press q to quit.",
        ]
        let top = max(0, (size.rows - lines.count) / 2)
        for (offset, line) in lines.enumerated() where top + offset < size.rows {
            let text = p.truncated(line, to: size.columns)
            let column = max(0, (size.columns - p.width(text)) / 2)
            p.put(text, column: column, row: top + offset, style: offset == 0 ? Style(.error, bold: true) : .normal)
        }
    }

    private static func drawHeader(_ state: StorefrontState, _ p: inout Painter) {
        let style = Style(.header, bold: true)
        p.fill(row: 0, style: style)
        let badge = state.cartBadge
        let cart = badge.itemCount == 0
            ? "cart: empty"
            : "cart: \(badge.itemCount) item\(badge.itemCount == 1 ? "" : "s") \(p.glyphs.separator) \(badge.subtotal.formatted)"
        let right = "\(state.shopperLabel) \(p.glyphs.separator) \(cart) "
        // On a narrow terminal the cart wins over the shopper's name.
        let fits = p.width(" \(state.shopName)") + 2 + p.width(right) <= p.size.columns
        p.putSpread(" \(state.shopName)", fits ? right : cart + " ", column: 0, row: 0, width: p.size.columns, leftStyle: style, rightStyle: style)
        let title = title(for: state, p)
        p.putSpread(" " + title.left, title.right + " ", column: 0, row: 1, width: p.size.columns, leftStyle: Style(.title, bold: true), rightStyle: Style(.dim))
    }

    private static func title(for state: StorefrontState, _ p: Painter) -> (left: String, right: String) {
        switch state.screen {
        case .productList:
            let list = state.productList
            let range = list.totalCount == 0 ? "0 of 0" : "\(list.selectedIndex + 1) of \(list.totalCount)"
            if list.isEditingQuery || !list.query.isEmpty {
                let cursor = list.isEditingQuery ? "_" : ""
                return ("Search: \(list.query)\(cursor)", range)
            }
            return ("Products", range)
        case .productDetail: return ("Product", state.productDetail.map { $0.product.id.rawValue } ?? "")
        case .cart: return ("Your cart", state.cart.lines.isEmpty ? "" : "\(state.cart.lines.count) line\(state.cart.lines.count == 1 ? "" : "s")")
        case .paymentSheet: return ("Checkout", "sandbox payments")
        case .confirmation: return ("Order placed", "")
        case .orders: return ("Your orders", "\(state.orders.totalCount) total")
        case .orderDetail: return ("Order \(state.orderDetail?.number ?? "")", "")
        case .account: return ("Your account", state.account.isSignedIn ? "signed in" : "guest")
        case .form:
            guard let form = state.form else { return ("", "") }
            return (form.title, "field \(form.focusedIndex + 1) of \(form.fields.count)")
        }
    }

    private static func drawNotice(_ state: StorefrontState, _ p: inout Painter) {
        let row = p.size.rows - 2
        if let notice = state.notice {
            let style = notice.kind == .error ? Style(.error, bold: true) : Style(.success)
            p.put(" " + notice.text, column: 0, row: row, style: style)
        }
    }

    private static func drawFooter(_ state: StorefrontState, _ p: inout Painter) {
        let row = p.size.rows - 1
        p.fill(row: row, style: Style(.dim))
        let bindings = KeyBindings.footer(for: state)
        // Help and quit always fit: the other hints are dropped from the end when space runs out.
        let fixed = bindings.filter { $0.action == .toggleHelp || $0.action == .quit || $0.summary == "close help" }
        let optional = bindings.filter { b in !fixed.contains { $0.action == b.action && $0.summary == b.summary } }
        func hintWidth(_ b: KeyBinding) -> Int { p.width(b.label) + 1 + p.width(b.summary) + 2 }
        var budget = p.size.columns - 1 - fixed.reduce(0) { $0 + hintWidth($1) }
        var shown: [KeyBinding] = []
        for binding in optional where hintWidth(binding) <= budget {
            shown.append(binding)
            budget -= hintWidth(binding)
        }
        var column = 1
        for binding in shown + fixed {
            column += p.put(binding.label, column: column, row: row, style: Style(.key, bold: true))
            column += p.put(" " + binding.summary + "  ", column: column, row: row, style: Style(.dim))
        }
    }

    // MARK: - Product list

    private static func drawProductList(_ state: StorefrontState, _ body: BodyRect, _ p: inout Painter) {
        let list = state.productList
        let hasPreview = body.width >= previewThreshold
        let listWidth = hasPreview ? min(90, body.width * 11 / 20) : body.width
        if list.totalCount == 0 {
            let message = list.query.isEmpty ? "The catalog is empty." : "No products match \u{201C}\(list.query)\u{201D}. Esc clears the search."
            p.put(message, column: 2, row: body.top + 1, style: Style(.dim))
            return
        }
        let visible = min(list.rows.count, body.height)
        let priceWidth = list.rows.prefix(visible).map { p.width($0.price.formatted) }.max() ?? 0
        for (offset, product) in list.rows.prefix(visible).enumerated() {
            let row = body.top + offset
            let isSelected = list.windowStart + offset == list.selectedIndex
            let style = isSelected ? Style(.selection, bold: true) : .normal
            if isSelected { p.fill(row: row, width: listWidth, style: style) }
            p.put(isSelected ? p.glyphs.marker : " ", column: 1, row: row, style: style)
            let nameSpace = listWidth - 4 - priceWidth - 2
            let showsSummary = !hasPreview && nameSpace >= 56
            let nameWidth = showsSummary ? 30 : nameSpace
            p.put(product.name, column: 3, row: row, style: style, width: nameWidth)
            if showsSummary {
                p.put(product.summary, column: 3 + nameWidth + 2, row: row, style: isSelected ? style : Style(.dim), width: nameSpace - nameWidth - 2)
            }
            if product.isSoldOut {
                p.putRight("Sold out", end: listWidth - 1, row: row, style: isSelected ? style : Style(.error))
            } else {
                p.putRight(product.price.formatted, end: listWidth - 1, row: row, style: isSelected ? style : Style(.price))
            }
        }
        if hasPreview, let product = list.selectedProduct {
            let column = listWidth + 1
            for y in body.top..<body.bottom { p.put(p.glyphs.vertical, column: listWidth, row: y, style: Style(.border)) }
            drawProductSummary(product, quantityInCart: nil, column: column + 1, top: body.top, width: body.width - column - 2, height: body.height, &p)
        }
    }

    /// Name, price, art, description and tags, stacked in a column.
    private static func drawProductSummary(_ product: Product, quantityInCart: Int?, column: Int, top: Int, width: Int, height: Int, _ p: inout Painter) {
        var lines: [(String, Style)] = [
            (product.name, Style(.title, bold: true)),
            (product.price.formatted + stockNote(product, p) + (quantityInCart.map { $0 > 0 ? "  \(p.glyphs.separator) \($0) in your cart" : "" } ?? ""), Style(.price, bold: true)),
            ("", .normal),
        ]
        if !product.art.isEmpty, height >= 14 {
            lines += product.art.map { ($0, Style(.art)) }
            lines.append(("", .normal))
        }
        lines += p.wrapped(product.description, width: width).map { ($0, Style.normal) }
        if !product.tags.isEmpty {
            lines.append(("", .normal))
            lines.append((product.tags.map { "#" + $0 }.joined(separator: " "), Style(.dim)))
        }
        for (offset, line) in lines.prefix(height).enumerated() {
            p.put(line.0, column: column, row: top + offset, style: line.1, width: width)
        }
    }

    /// "  · Sold out" or "  · Only 3 left"; empty when stock is plentiful or not tracked.
    private static func stockNote(_ product: Product, _ p: Painter) -> String {
        if product.isSoldOut { return "  \(p.glyphs.separator) Sold out" }
        if let few = product.fewLeft { return "  \(p.glyphs.separator) Only \(few) left" }
        return ""
    }

    // MARK: - Product detail

    private static func drawProductDetail(_ state: StorefrontState, _ body: BodyRect, _ p: inout Painter) {
        guard let detail = state.productDetail else { return }
        let product = detail.product
        let artWidth = product.art.map { p.width($0) }.max() ?? 0
        let sideBySide = artWidth > 0 && body.width >= artWidth + 44
        if sideBySide {
            let artTop = body.top + 1
            for (offset, line) in product.art.prefix(body.height - 1).enumerated() {
                p.put(line, column: 2, row: artTop + offset, style: Style(.art))
            }
            let column = artWidth + 6
            drawProductSummaryWithoutArt(detail, column: column, top: body.top + 1, width: body.width - column - 2, height: body.height - 1, &p)
        } else {
            drawProductSummary(product, quantityInCart: detail.quantityInCart, column: 2, top: body.top, width: body.width - 4, height: body.height, &p)
        }
    }

    private static func drawProductSummaryWithoutArt(_ detail: ProductDetailState, column: Int, top: Int, width: Int, height: Int, _ p: inout Painter) {
        var product = detail.product
        product.art = []
        drawProductSummary(product, quantityInCart: detail.quantityInCart, column: column, top: top, width: width, height: height, &p)
    }

    // MARK: - Cart

    private static func drawCart(_ state: StorefrontState, _ body: BodyRect, _ p: inout Painter) {
        let cart = state.cart
        if cart.lines.isEmpty {
            p.put("Your cart is empty.", column: 2, row: body.top + 1, style: Style(.title, bold: true))
            p.put("Press s to browse the shop.", column: 2, row: body.top + 2, style: Style(.dim))
            return
        }
        let width = min(body.width - 2, 96)
        let left = 1
        let showsUnit = width >= 60
        let totalColumn = left + width
        let quantityEnd = totalColumn - 12
        let unitEnd = quantityEnd - 6
        let nameWidth = (showsUnit ? unitEnd - 12 : quantityEnd - 6) - left - 2
        p.put("Item", column: left + 2, row: body.top, style: Style(.dim))
        if showsUnit { p.putRight("Price", end: unitEnd, row: body.top, style: Style(.dim)) }
        p.putRight("Qty", end: quantityEnd, row: body.top, style: Style(.dim))
        p.putRight("Total", end: totalColumn, row: body.top, style: Style(.dim))

        let totalsRows = 4
        let lineRows = max(1, body.height - 1 - totalsRows - 1)
        let start = min(max(0, cart.selectedIndex - lineRows + 1), max(0, cart.lines.count - lineRows))
        for (offset, line) in cart.lines.dropFirst(start).prefix(lineRows).enumerated() {
            let row = body.top + 1 + offset
            let isSelected = start + offset == cart.selectedIndex
            let style = isSelected ? Style(.selection, bold: true) : .normal
            if isSelected { p.fill(row: row, column: left, width: width, style: style) }
            p.put(isSelected ? p.glyphs.marker : " ", column: left, row: row, style: style)
            p.put(line.name, column: left + 2, row: row, style: style, width: nameWidth)
            if showsUnit { p.putRight(line.unitPrice.formatted, end: unitEnd, row: row, style: style) }
            p.putRight("\(line.quantity)", end: quantityEnd, row: row, style: style)
            p.putRight(line.total.formatted, end: totalColumn, row: row, style: isSelected ? style : Style(.price))
        }
        let totals = cart.totals
        let labelColumn = max(left + 2, totalColumn - 34)
        let top = body.bottom - totalsRows
        let shipping = totals.shipping.isZero ? "Free" : totals.shipping.formatted
        let rows: [(String, String, Style)] = [
            ("Subtotal", totals.subtotal.formatted, .normal),
            ("Shipping (\(cart.shippingLabel))", shipping, .normal),
            ("Tax", totals.tax.formatted, .normal),
            ("Total", totals.total.formatted, Style(.price, bold: true)),
        ]
        for (offset, row) in rows.enumerated() {
            p.putSpread(row.0, row.1, column: labelColumn, row: top + offset, width: totalColumn - labelColumn, leftStyle: row.2, rightStyle: row.2)
        }
    }

    // MARK: - Payment sheet

    private static func drawPaymentSheet(_ state: StorefrontState, _ body: BodyRect, _ p: inout Painter) {
        guard let sheet = state.paymentSheet else { return }
        let width = min(body.width - 2, 72)
        let left = (body.width - width) / 2
        // Full sheet: box, four rows, a gap, the summary items, a gap, the status or button.
        let errorRows = sheet.rowErrors.count
        let fullHeight = 2 + 4 + errorRows + 1 + sheet.summaryItems.count + 1 + 1
        let compact = body.height < fullHeight
        let inner = compact ? width : width - 4
        let column = compact ? left : left + 2
        var row = body.top + (compact ? 0 : 1)
        if !compact {
            p.box(column: left, row: body.top, width: width, height: min(body.height, fullHeight), title: "Pay with \(sheet.merchantName)")
        }
        let bottomLimit = compact ? body.bottom : body.top + min(body.height, fullHeight) - 1

        if let chooser = sheet.chooser {
            p.put("Choose \(chooser.row.title.lowercased())", column: column, row: row, style: Style(.title, bold: true), width: inner)
            row += 1
            let room = bottomLimit - row
            let start = min(max(0, chooser.selectedIndex - room + 1), max(0, chooser.options.count - room))
            for (offset, option) in chooser.options.dropFirst(start).prefix(room).enumerated() {
                let isSelected = start + offset == chooser.selectedIndex
                let style = isSelected ? Style(.selection, bold: true) : .normal
                if isSelected { p.fill(row: row, column: column, width: inner, style: style) }
                p.put(isSelected ? p.glyphs.marker : " ", column: column, row: row, style: style)
                let titleWidth = min(inner / 2, max(18, p.width(option.title)))
                p.put(option.title, column: column + 2, row: row, style: style, width: titleWidth)
                p.put(option.detail, column: column + 3 + titleWidth, row: row, style: isSelected ? style : Style(.dim), width: inner - titleWidth - 3)
                row += 1
            }
            return
        }

        let labelWidth = 10
        for sheetRow in PaymentSheetRow.allCases where row < bottomLimit {
            let isSelected = sheetRow == sheet.selectedRow && sheet.authorizationPrompt == nil
            let style = isSelected ? Style(.selection, bold: true) : .normal
            if isSelected { p.fill(row: row, column: column, width: inner, style: style) }
            p.put(sheetRow.title, column: column, row: row, style: isSelected ? style : Style(.dim), width: labelWidth)
            p.put(sheet.rowValues[sheetRow] ?? "", column: column + labelWidth, row: row, style: style, width: inner - labelWidth - 2)
            p.put(p.glyphs.chevron, column: column + inner - 1, row: row, style: isSelected ? style : Style(.dim))
            row += 1
            if let error = sheet.rowErrors[sheetRow], row < bottomLimit {
                p.put("! " + error, column: column + labelWidth, row: row, style: Style(.error, bold: true), width: inner - labelWidth)
                row += 1
            }
        }
        if !compact { row += 1 }
        let items = compact ? Array(sheet.summaryItems.suffix(1)) : sheet.summaryItems
        for (index, item) in items.enumerated() where row < bottomLimit {
            let isTotal = index == items.count - 1
            let label = isTotal ? "Pay \(item.label)" : item.label
            let amount = item.kind == .pending ? "Amount pending" : item.amount.formatted
            let style = isTotal ? Style(.price, bold: true) : .normal
            p.putSpread(label, amount, column: column, row: row, width: inner, leftStyle: style, rightStyle: style)
            row += 1
        }
        if !compact { row += 1 }
        guard row < bottomLimit || (compact && row < body.bottom) else { return }
        if let prompt = sheet.authorizationPrompt {
            if let status = sheet.status, !compact {
                p.put(status, column: column, row: row - 1, style: Style(.accent), width: inner)
            }
            let lines = p.wrapped(prompt, width: inner)
            for line in lines where row < body.bottom {
                p.put(line, column: column, row: row, style: Style(.accent, bold: true), width: inner)
                row += 1
            }
            return
        }
        var statusColumn = column
        if sheet.isBusy {
            let spinner = p.glyphs.spinner[state.spinnerPhase % p.glyphs.spinner.count]
            statusColumn += p.put(spinner + " ", column: column, row: row, style: Style(.accent))
        }
        let button = sheet.offersCardSetup ? "[ Set up card ]" : "[ Pay ]"
        let buttonStyle = sheet.isPayEnabled || sheet.offersCardSetup ? Style(.accent, bold: true) : Style(.dim)
        let buttonWidth = p.width(button)
        if let status = sheet.status {
            let style = sheet.isStatusError ? Style(.error, bold: true) : Style(.accent)
            p.put(status, column: statusColumn, row: row, style: style, width: inner - (statusColumn - column) - buttonWidth - 1)
        }
        if !sheet.isBusy { p.putRight(button, end: column + inner, row: row, style: buttonStyle) }
    }

    // MARK: - Confirmation and orders

    private static func drawConfirmation(_ state: StorefrontState, _ body: BodyRect, _ p: inout Painter) {
        guard let confirmation = state.confirmation else { return }
        let column = 2
        let width = body.width - 4
        var row = body.top + (body.height >= 12 ? 1 : 0)
        p.put("\(p.glyphs.check) Thank you!", column: column, row: row, style: Style(.success, bold: true))
        row += 1
        p.put("Order \(confirmation.orderNumber) is paid.", column: column, row: row, style: Style(.title, bold: true), width: width)
        row += body.height >= 10 ? 2 : 1
        let details: [(String, String)] = [
            ("Total", "\(confirmation.total.formatted) for \(confirmation.itemCount) item\(confirmation.itemCount == 1 ? "" : "s")"),
            ("Paid with", confirmation.paymentDescription),
            ("Shipping", confirmation.shippingMethodLabel),
            ("Ship to", confirmation.shipTo),
        ]
        for (label, value) in details where row < body.bottom {
            p.put(label, column: column, row: row, style: Style(.dim), width: 11)
            p.put(value, column: column + 11, row: row, width: width - 11)
            row += 1
        }
    }

    private static func drawOrders(_ state: StorefrontState, _ body: BodyRect, _ p: inout Painter) {
        let orders = state.orders
        guard orders.totalCount > 0 else {
            p.put("No orders yet.", column: 2, row: body.top + 1, style: Style(.title, bold: true))
            p.put("Orders you place appear here, newest first.", column: 2, row: body.top + 2, style: Style(.dim))
            return
        }
        let width = min(body.width - 2, 96)
        let left = 1
        let end = left + width
        let showsDate = width >= 64
        p.put("Order", column: left + 2, row: body.top, style: Style(.dim))
        if showsDate { p.put("Placed (UTC)", column: left + 16, row: body.top, style: Style(.dim)) }
        p.putRight("Status", end: end - 13, row: body.top, style: Style(.dim))
        p.putRight("Total", end: end, row: body.top, style: Style(.dim))
        for (offset, order) in orders.rows.prefix(body.height - 1).enumerated() {
            let row = body.top + 1 + offset
            let isSelected = orders.windowStart + offset == orders.selectedIndex
            let style = isSelected ? Style(.selection, bold: true) : .normal
            if isSelected { p.fill(row: row, column: left, width: width, style: style) }
            p.put(isSelected ? p.glyphs.marker : " ", column: left, row: row, style: style)
            p.put(order.number, column: left + 2, row: row, style: style, width: 13)
            if showsDate { p.put(timestamp(order.placedAt), column: left + 16, row: row, style: style) }
            p.putRight(order.status.displayName, end: end - 13, row: row, style: isSelected ? style : statusStyle(order.status))
            p.putRight(order.totals.total.formatted, end: end, row: row, style: isSelected ? style : Style(.price))
        }
    }

    private static func drawOrderDetail(_ state: StorefrontState, _ body: BodyRect, _ p: inout Painter) {
        guard let order = state.orderDetail else { return }
        let column = 2
        let width = min(body.width - 4, 90)
        var row = body.top
        p.putSpread("\(order.status.displayName) \(p.glyphs.separator) \(timestamp(order.placedAt)) UTC", order.paymentDescription, column: column, row: row, width: width, leftStyle: statusStyle(order.status))
        row += 1
        p.put("\(order.shippingMethodLabel) to \(order.shipTo)", column: column, row: row, style: Style(.dim), width: width)
        row += 2
        let totalsRows = 4
        let room = max(0, body.bottom - row - totalsRows)
        for line in order.lines.prefix(room) {
            p.putSpread("\(line.quantity) \(p.glyphs.separator) \(line.name)", line.total.formatted, column: column, row: row, width: width)
            row += 1
        }
        row = max(row, body.bottom - totalsRows)
        let totals = order.totals
        for (label, amount, style) in [("Subtotal", totals.subtotal, Style.normal), ("Shipping", totals.shipping, .normal), ("Tax", totals.tax, .normal), ("Total", totals.total, Style(.price, bold: true))] where row < body.bottom {
            p.putSpread(label, amount.formatted, column: column, row: row, width: width, leftStyle: style, rightStyle: style)
            row += 1
        }
    }

    private static func statusStyle(_ status: OrderStatus) -> Style {
        switch status {
        case .paid: Style(.success)
        case .declined, .canceled, .unknown: Style(.error)
        default: Style(.dim)
        }
    }

    /// "2026-11-22 14:05", always UTC so frames do not depend on the machine's zone.
    public static func timestamp(_ date: Date) -> String {
        let c = Calendar.utcGregorian.dateComponents([.year, .month, .day, .hour, .minute], from: date)
        func two(_ v: Int?) -> String { let v = v ?? 0; return v < 10 ? "0\(v)" : "\(v)" }
        return "\(c.year ?? 0)-\(two(c.month))-\(two(c.day)) \(two(c.hour)):\(two(c.minute))"
    }

    // MARK: - Account and forms

    private static func drawAccount(_ state: StorefrontState, _ body: BodyRect, _ p: inout Painter) {
        let account = state.account
        let column = 2
        let width = min(body.width - 4, 90)
        var row = body.top
        p.put(account.title, column: column, row: row, style: Style(.title, bold: true), width: width)
        row += 1
        p.put(account.detail, column: column, row: row, style: Style(.dim), width: width)
        row += 1
        let oneTap = account.isOneTapReady
            ? "\(p.glyphs.check) One-Tap ready: b buys at once with your default card and address."
            : "One-Tap needs a default card (on \(state.shopName)'s networks) and a default address."
        // Rows: a heading and its entries per section, then the One-Tap line at the bottom.
        var lines: [(text: String, detail: String, isDefault: Bool, index: Int?)] = []
        let cards = account.rows.enumerated().filter { $0.element.kind == .card }
        let addresses = account.rows.enumerated().filter { $0.element.kind == .address }
        lines.append(("Cards", "", false, nil))
        if cards.isEmpty { lines.append(("  No cards yet: press n to add one.", "", false, -1)) }
        for (index, card) in cards { lines.append((card.title, card.detail, card.isDefault, index)) }
        lines.append(("Addresses", "", false, nil))
        if addresses.isEmpty { lines.append(("  No addresses yet: press d to add one.", "", false, -1)) }
        for (index, address) in addresses { lines.append((address.title, address.detail, address.isDefault, index)) }
        let room = max(0, body.bottom - row - 2)
        // Scroll so the selected entry stays in view.
        let selectedLine = lines.firstIndex { $0.index == account.selectedIndex } ?? 0
        let start = min(max(0, selectedLine - room + 1), max(0, lines.count - room))
        if room > 0 { row += 1 }
        for line in lines.dropFirst(start).prefix(room) {
            guard let index = line.index else {
                p.put(line.text, column: column, row: row, style: Style(.title, bold: true))
                row += 1
                continue
            }
            if index < 0 {
                p.put(line.text, column: column, row: row, style: Style(.dim), width: width)
                row += 1
                continue
            }
            let isSelected = index == account.selectedIndex
            let style = isSelected ? Style(.selection, bold: true) : .normal
            if isSelected { p.fill(row: row, column: column, width: width, style: style) }
            p.put(isSelected ? p.glyphs.marker : " ", column: column, row: row, style: style)
            let titleWidth = min(24, width / 3)
            p.put(line.text, column: column + 2, row: row, style: style, width: titleWidth)
            let tag = line.isDefault ? "default" : ""
            p.put(line.detail, column: column + 3 + titleWidth, row: row, style: isSelected ? style : Style(.dim), width: width - titleWidth - 3 - 9)
            if line.isDefault { p.putRight(tag, end: column + width, row: row, style: isSelected ? style : Style(.success)) }
            row += 1
        }
        if body.bottom - 1 > row { p.put(oneTap, column: column, row: body.bottom - 1, style: oneTap.hasPrefix(p.glyphs.check) ? Style(.success) : Style(.dim), width: width) }
    }

    private static func drawForm(_ state: StorefrontState, _ body: BodyRect, _ p: inout Painter) {
        guard let form = state.form else { return }
        let column = 2
        let width = min(body.width - 4, 90)
        let labelWidth = min(16, (form.fields.map { p.width($0.label) }.max() ?? 0) + 2)
        let valueWidth = max(8, width - labelWidth - 2)
        // Each field is one row, plus one for its error; the message and the status fill the rest.
        var fieldLines: [(field: Int, isError: Bool)] = []
        for (index, field) in form.fields.enumerated() {
            fieldLines.append((index, false))
            if field.error != nil { fieldLines.append((index, true)) }
        }
        let messageLines = p.wrapped(form.message, width: width)
        let spare = body.height - fieldLines.count - 2
        let shownMessage = spare > 0 ? Array(messageLines.prefix(spare)) : []
        var row = body.top
        for line in shownMessage {
            p.put(line, column: column, row: row, style: Style(.dim), width: width)
            row += 1
        }
        if !shownMessage.isEmpty { row += 1 }
        let room = max(1, body.bottom - row - 1)
        let focusedLine = fieldLines.firstIndex { $0.field == form.focusedIndex && !$0.isError } ?? 0
        let start = min(max(0, focusedLine - room + 2), max(0, fieldLines.count - room))
        for line in fieldLines.dropFirst(start).prefix(room) {
            let field = form.fields[line.field]
            if line.isError {
                p.put("! " + (field.error ?? ""), column: column + labelWidth + 2, row: row, style: Style(.error, bold: true), width: valueWidth)
                row += 1
                continue
            }
            let isFocused = line.field == form.focusedIndex
            let style = isFocused ? Style(.selection, bold: true) : .normal
            p.put(isFocused ? p.glyphs.marker : " ", column: column, row: row, style: isFocused ? Style(.accent, bold: true) : .normal)
            p.put(field.label, column: column + 2, row: row, style: field.error != nil ? Style(.error) : Style(.dim), width: labelWidth)
            let shown = field.isMasked ? String(repeating: p.glyphs.bullet, count: field.value.count) : field.value
            let cursor = isFocused && !form.isBusy ? "_" : ""
            // The end of a long value stays in view while typing.
            var text = shown + cursor
            while p.width(text) > valueWidth, !text.isEmpty { text.removeFirst() }
            if isFocused { p.fill(row: row, column: column + labelWidth + 2, width: valueWidth, style: style) }
            let used = p.put(text, column: column + labelWidth + 2, row: row, style: style, width: valueWidth)
            if field.value.isEmpty, !field.hint.isEmpty, used + 2 < valueWidth {
                p.put(field.hint, column: column + labelWidth + 2 + used + 1, row: row, style: isFocused ? style : Style(.dim), width: valueWidth - used - 1)
            }
            row += 1
        }
        let statusRow = body.bottom - 1
        guard statusRow >= row else { return }
        var statusColumn = column
        if form.isBusy {
            let spinner = p.glyphs.spinner[state.spinnerPhase % p.glyphs.spinner.count]
            statusColumn += p.put(spinner + " ", column: column, row: statusRow, style: Style(.accent))
        }
        let button = "[ \(form.submitLabel) ]"
        if let status = form.status {
            p.put(status, column: statusColumn, row: statusRow, style: form.isStatusError ? Style(.error, bold: true) : Style(.accent), width: width - p.width(button) - 1 - (statusColumn - column))
        }
        if !form.isBusy {
            p.putRight(button, end: column + width, row: statusRow, style: form.isOnLastField ? Style(.accent, bold: true) : Style(.dim))
        }
    }

    // MARK: - Help

    private static func drawHelp(_ state: StorefrontState, _ body: BodyRect, _ p: inout Painter) {
        var underlying = state
        underlying.isHelpShown = false
        let context = KeyContext(underlying)
        let bindings = KeyBindings.table.filter { $0.contexts.contains(context) }
        var seen = Set<String>()
        let entries = bindings.filter { seen.insert($0.label + $0.summary).inserted }
        let width = min(body.width - 2, 56)
        let left = (body.width - width) / 2
        // One bordered column when it fits; otherwise two columns, dropping the border if still needed.
        let bordered = entries.count + 2 <= body.height || (entries.count + 1) / 2 + 2 <= body.height
        let rows = bordered ? body.height - 2 : body.height
        let columns = entries.count <= rows ? 1 : 2
        let perColumn = (entries.count + columns - 1) / columns
        let height = min(body.height, perColumn + (bordered ? 2 : 0))
        p.fill(row: body.top, column: left, width: width, height: height)
        let inset = bordered ? 2 : 1
        if bordered { p.box(column: left, row: body.top, width: width, height: height, title: "Keys") }
        let columnWidth = (width - 2 * inset) / columns
        let labelWidth = columns == 1 ? 12 : 6
        for (index, binding) in entries.enumerated() {
            let row = body.top + (bordered ? 1 : 0) + index % perColumn
            guard row < body.top + height - (bordered ? 1 : 0) else { continue }
            let column = left + inset + (index / perColumn) * columnWidth
            p.put(binding.label, column: column, row: row, style: Style(.key, bold: true), width: labelWidth)
            p.put(binding.summary, column: column + labelWidth + 1, row: row, width: columnWidth - labelWidth - 2)
        }
    }
}
