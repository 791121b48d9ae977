import ShopLanguages
import ShopModels
import StorefrontCore

/// The account screen: cards, addresses, API tokens, the ways in, and One-Tap readiness.
extension Layout {
    static func drawAccount(_ state: StorefrontState, _ body: BodyRect, _ p: inout Painter) {
        let account = state.account
        let column = 2
        let width = min(body.width - 4, 90)
        var row = body.top
        p.put(p.tr(account.title), column: column, row: row, style: Style(.title, bold: true), width: width)
        row += 1
        p.put(p.tr(account.detail), column: column, row: row, style: Style(.dim), width: width)
        row += 1
        let oneTap =
            account.isOneTapReady
            ? "\(p.glyphs.check) " + p.tr("One-Tap ready: b buys at once with your default card and address.")
            : p.tr("One-Tap needs a default card (on \(state.shopName)'s networks) and a default address.")
        // Rows: a heading and its entries per section, then the One-Tap line at the bottom.
        var lines: [(text: String, detail: String, isDefault: Bool, index: Int?)] = []
        if let new = account.newToken {
            // The one time the secret is on screen: in full, on a line of its own, so it can be selected and copied.
            row += 1
            p.put(p.tr("New token \(new.name), shown once: copy it now."), column: column, row: row, style: Style(.success, bold: true), width: width)
            row += 1
            p.put(new.secret, column: column, row: row, style: Style(.title, bold: true), width: max(width, new.secret.count))
            row += 1
        }
        let cards = account.rows.enumerated().filter { $0.element.kind == .card }
        let addresses = account.rows.enumerated().filter { $0.element.kind == .address }
        let tokens = account.rows.enumerated().filter { $0.element.kind == .token }
        lines.append((p.tr("Cards"), "", false, nil))
        if cards.isEmpty { lines.append(("  " + p.tr("No cards yet: press n to add one."), "", false, -1)) }
        for (index, card) in cards { lines.append((p.tr(card.title), p.tr(card.detail), card.isDefault, index)) }
        lines.append((p.tr("Addresses"), "", false, nil))
        if addresses.isEmpty { lines.append(("  " + p.tr("No addresses yet: press d to add one."), "", false, -1)) }
        for (index, address) in addresses { lines.append((p.tr(address.title), p.tr(address.detail), address.isDefault, index)) }
        if account.canMakeTokens {
            lines.append((p.tr("API tokens"), "", false, nil))
            if tokens.isEmpty { lines.append(("  " + p.tr("No tokens: press t to make one for the HTTP API."), "", false, -1)) }
            for (index, token) in tokens { lines.append((p.tr(token.title), p.tr(token.detail), false, index)) }
        }
        let waysIn = account.rows.enumerated().filter { $0.element.kind == .wayIn || $0.element.kind == .session }
        if account.canSignOutEverywhere || !waysIn.isEmpty {
            lines.append((p.tr("Ways in"), "", false, nil))
            lines.append(("  " + p.tr("x removes one (not the last); e signs out everywhere, keeping the keys."), "", false, -1))
            for (index, way) in waysIn { lines.append((p.tr(way.title), p.tr(way.detail), false, index)) }
        }
        // The list's rows: all but the gap above it, the gap below it and the One-Tap line, which a long list never hides.
        let room = max(0, body.bottom - row - 3)
        // Scroll so the selected entry stays in view.
        let selectedLine = lines.firstIndex { $0.index == account.selectedIndex } ?? 0
        let start = ListSelection.windowStart(selected: selectedLine, capacity: room, total: lines.count)
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
            // Enter here makes the entry the default: a click only selects it.
            let style = p.selectableRow(row: row, band: column, width: width, fromSelected: index - account.selectedIndex, opens: false)
            let titleWidth = min(24, width / 3)
            p.put(line.text, column: column + 2, row: row, style: style, width: titleWidth)
            let tag = line.isDefault ? p.tr("default") : ""
            p.put(
                line.detail, column: column + 3 + titleWidth, row: row, style: isSelected ? style : Style(.dim),
                width: width - titleWidth - 3 - max(9, p.width(p.tr("default")) + 2))
            if line.isDefault { p.putRight(tag, end: column + width, row: row, style: isSelected ? style : Style(.success)) }
            row += 1
        }
        if body.bottom - 1 > row {
            p.put(oneTap, column: column, row: body.bottom - 1, style: oneTap.hasPrefix(p.glyphs.check) ? Style(.success) : Style(.dim), width: width)
        }
    }
}
