import Foundation
import ShopLanguages
import ShopModels
import ShopPorts
import StorefrontCore

/// The merchant console's order queue and one order whole: lines, totals, payment, refunds and history.
extension Layout {
    static func drawMerchantQueue(_ console: MerchantConsoleState, _ body: BodyRect, _ p: inout Painter) {
        // The filters, the chosen one marked, as a row of tabs.
        var column = 1
        for filter in OrderQueueFilter.allCases {
            let isChosen = filter == console.filter
            column += p.put(
                isChosen ? "[\(filter.title)]" : " \(filter.title) ", column: column, row: body.top,
                style: isChosen ? Style(.title, bold: true) : Style(.dim))
            column += 1
        }
        let queue = console.queue
        let top = body.top + 2
        guard queue.totalCount > 0 else {
            p.put(queue.isLoading ? "Reading the orders…" : "No orders here.", column: 2, row: top, style: Style(.dim))
            return
        }
        let width = min(body.width - 2, 110)
        let (left, end) = (1, 1 + width)
        let showsCustomer = width >= 78
        p.put("Order", column: left + 2, row: top - 1, style: Style(.dim))
        p.put("Placed (UTC)", column: left + 16, row: top - 1, style: Style(.dim))
        if showsCustomer { p.put("Customer", column: left + 34, row: top - 1, style: Style(.dim)) }
        p.putRight("Status", end: end - 13, row: top - 1, style: Style(.dim))
        p.putRight("Total", end: end, row: top - 1, style: Style(.dim))
        for (offset, order) in queue.rows.prefix(max(0, body.bottom - top)).enumerated() {
            let row = top + offset
            let isSelected = queue.windowStart + offset == queue.selectedIndex
            let style = p.selectableRow(row: row, band: left, width: width, fromSelected: queue.windowStart + offset - queue.selectedIndex)
            p.put(order.number, column: left + 2, row: row, style: style, width: 13)
            p.put(timestamp(order.placedAt), column: left + 16, row: row, style: style, width: 17)
            if showsCustomer { p.put(order.customerLabel, column: left + 34, row: row, style: style, width: max(0, width - 34 - 36)) }
            p.putRight(order.status.displayName, end: end - 13, row: row, style: isSelected ? style : statusStyle(order.status))
            p.putRight(order.totals.total.formatted, end: end, row: row, style: isSelected ? style : Style(.price))
        }
    }

    static func drawMerchantOrder(_ state: StorefrontState, _ console: MerchantConsoleState, _ body: BodyRect, _ p: inout Painter) {
        guard let dossier = console.dossier else {
            p.put("Reading the order…", column: 2, row: body.top + 1, style: Style(.dim))
            return
        }
        let order = dossier.order
        let lifecycle = dossier.lifecycle
        let column = 2
        let wide = body.width >= 100
        // Wide: the order at the left, its refunds and history at the right; narrow: one under the other.
        let leftWidth = wide ? min(50, body.width / 2 - 2) : min(body.width - 4, 90)
        var row = body.top
        p.putSpread(
            "\(order.status.displayName) \(p.glyphs.separator) \(timestamp(order.placedAt)) UTC", order.customerLabel, column: column, row: row,
            width: leftWidth, leftStyle: statusStyle(order.status), rightStyle: Style(.dim))
        row += 1
        p.put("\(order.shippingMethodLabel) to \(order.shipTo)", column: column, row: row, style: Style(.dim), width: leftWidth)
        row += 1
        p.put(
            "Paid with \(order.paymentDescription)" + (order.paymentReference.map { " (\($0))" } ?? ""), column: column, row: row, style: Style(.dim),
            width: leftWidth)
        row += 1
        if let parcel = lifecycle?.shipment {
            p.put(
                "\(parcel.carrier) \(parcel.trackingNumber)" + (parcel.trackingURL.map { " \($0)" } ?? ""), column: column, row: row,
                style: Style(.accent), width: leftWidth)
            row += 1
        }
        // A chargeback has a deadline at the provider: the merchant sees it before anything else about the order.
        if case .disputed(let amount, let reason, let reference)? = dossier.events.last(where: {
            if case .disputed = $0.change { true } else { false }
        })?.change {
            let closed = dossier.events.lazy.compactMap { event -> String? in
                if case .disputeClosed(reference, let outcome) = event.change { outcome } else { nil }
            }.first
            let text =
                "Disputed \(amount.formatted)" + (reason.isEmpty ? "" : ": \(reason)") + " (\(reference)); "
                + (closed.map { "closed: \($0.replacingOccurrences(of: "_", with: " "))" } ?? "answer at the payment provider")
            p.put(text, column: column, row: row, style: closed == nil ? Style(.error, bold: true) : Style(.accent), width: leftWidth)
            row += 1
        }
        row += 1
        let totals = totalsRows(order, refunded: lifecycle?.refunded, p)
        for line in order.lines.prefix(max(0, body.bottom - row - totals.count - 1)) {
            p.putSpread("\(line.quantity) \(p.glyphs.separator) \(line.name)", line.total.formatted, column: column, row: row, width: leftWidth)
            row += 1
        }
        row += 1
        drawTotals(totals, column: column, row: row, width: leftWidth, bottom: body.bottom, &p)
        row += totals.count + 1
        var right = wide ? body.top : row
        let rightColumn = wide ? column + leftWidth + 4 : column
        let rightWidth = wide ? body.width - rightColumn - 2 : leftWidth
        if !dossier.refunds.isEmpty, right < body.bottom {
            p.put("Refunds", column: rightColumn, row: right, style: Style(.title, bold: true))
            right += 1
            for refund in dossier.refunds.suffix(max(0, min(4, body.bottom - right))) {
                p.put(
                    "\(refund.id)  \(refund.ask.amount.formatted)  \(describe(refund.state))", column: rightColumn, row: right,
                    style: refund.state == .pending ? Style(.error) : .normal, width: rightWidth)
                right += 1
            }
            right += 1
        }
        if !dossier.messages.isEmpty, right < body.bottom - 2 {
            p.put("Mail to \(dossier.messages[0].recipient.address)", column: rightColumn, row: right, style: Style(.title, bold: true))
            right += 1
            for message in dossier.messages.suffix(max(0, min(4, body.bottom - right - 1))) {
                let (state, style): (String, Style) =
                    switch message.state {
                    case .sent: ("sent", .normal)
                    case .pending: (message.attempts == 0 ? "waiting" : "waiting, \(message.attempts) tries: \(message.lastError ?? "")", Style(.dim))
                    case .failed: ("given up: \(message.lastError ?? "")", Style(.error))
                    }
                p.put("\(message.id)  \(message.kind.rawValue)  \(state)", column: rightColumn, row: right, style: style, width: rightWidth)
                right += 1
            }
            right += 1
        }
        if right < body.bottom - 1 {
            p.put("History", column: rightColumn, row: right, style: Style(.title, bold: true))
            right += 1
            for event in dossier.events.suffix(max(0, body.bottom - right)) {
                p.put(
                    "\(timestamp(event.at))  \(event.change.shopperSummary) \(p.glyphs.separator) \(describe(event.actor))", column: rightColumn,
                    row: right, style: Style(.dim), width: rightWidth)
                right += 1
            }
        }
        if let prompt = console.prompt {
            p.promptBox(
                prompt.lines, title: "Confirm", isWorking: prompt.isWorking, spinnerPhase: state.spinnerPhase, bottom: body.bottom, width: body.width)
        }
    }

    static func describe(_ state: RefundState) -> String {
        switch state {
        case .pending: "waiting for the payment provider"
        case .refunded(let reference): "refunded \(reference)"
        case .declined(let reason): "declined: \(reason)"
        }
    }

    static func describe(_ actor: OrderActor) -> String {
        switch actor {
        case .shopper: "shopper"
        case .merchant(let name): name
        case .system: "the shop"
        case .provider: "payment provider"
        }
    }
}
