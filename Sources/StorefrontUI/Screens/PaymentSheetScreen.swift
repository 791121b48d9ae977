import ShopLanguages
import ShopModels
import StorefrontCore

/// The payment sheet: its rows, choosers, summary, prompt and Pay button.
extension Layout {
    static func drawPaymentSheet(_ state: StorefrontState, _ body: BodyRect, _ p: inout Painter) {
        guard let sheet = state.paymentSheet else { return }
        if let check = sheet.bankCheck {
            drawBankCheck(sheet, check, spinnerPhase: state.spinnerPhase, body, &p)
            return
        }
        let width = min(body.width - 2, 72)
        let left = (body.width - width) / 2
        // Full sheet: box, the rows, a gap, the summary items, a gap, the status (wrapped) beside the button.
        // A row's error wraps under its value, so a refusal that says where the shop ships is read whole.
        // As wide as the longest row name in the session's language ("Lieferung an"), within reason.
        let labelWidth = min(16, max(10, (sheet.rows.map { p.width(p.tr($0.title)) }.max() ?? 0) + 2))
        let errorLines = sheet.rowErrors.mapValues { p.wrapped("! " + p.tr($0), width: max(1, width - 4 - labelWidth)) }
        let errorRows = errorLines.values.reduce(0) { $0 + $1.count }
        let button = "[ " + (sheet.offersCardSetup ? p.tr("Set up card") : p.tr("Pay")) + " ]"
        let statusLines = Self.statusLines(sheet, button: button, width: width - 4, p)
        // The line that asks to charge is always drawn whole: the sheet makes room for all of it.
        let boxedPrompt = Self.promptLines(sheet, width: width - 4, p)
        let foldedHeight =
            2 + sheet.rows.count + errorRows + 1 + sheet.summaryItems.count + 1 + max(1, statusLines.count, boxedPrompt.count)
        let compact = body.height < foldedHeight
        // The Items row opens under itself where the whole sheet still fits; else it stays one line, and Enter opens it.
        let itemLines = sheet.rows.contains(.items) ? sheet.items.reduce(0) { $0 + ($1.schedule == nil ? 1 : 2) } : 0
        let itemsOpen = !compact && body.height >= foldedHeight + itemLines
        let fullHeight = foldedHeight + (itemsOpen ? itemLines : 0)
        let inner = compact ? width : width - 4
        let column = compact ? left : left + 2
        var row = body.top + (compact ? 0 : 1)
        if !compact {
            p.box(column: left, row: body.top, width: width, height: min(body.height, fullHeight), title: p.tr("Pay with \(sheet.merchantName)"))
        }
        let promptLines = compact ? Self.promptLines(sheet, width: inner, p) : boxedPrompt
        // Compact, the rows above give way to the prompt, never the prompt to them.
        let bottomLimit = compact ? body.bottom - promptLines.count : body.top + min(body.height, fullHeight) - 1

        if let chooser = sheet.chooser {
            p.put(p.tr(chooser.row.choosing), column: column, row: row, style: Style(.title, bold: true), width: inner)
            row += 1
            let room = bottomLimit - row
            let start = ListSelection.windowStart(selected: chooser.selectedIndex, capacity: room, total: chooser.rowCount)
            let rows = chooser.options + (chooser.addTitle.map { [ChooserState.Option(title: "+ \($0)", detail: .verbatim(""))] } ?? [])
            for (offset, option) in rows.dropFirst(start).prefix(room).enumerated() {
                let isSelected = start + offset == chooser.selectedIndex
                let style = p.selectableRow(row: row, band: column, width: inner, fromSelected: start + offset - chooser.selectedIndex)
                if chooser.row == .items {
                    // A line and its price, as a receipt lists them.
                    p.putSpread(
                        p.tr(option.title), p.tr(option.detail), column: column + 2, row: row, width: inner - 2, leftStyle: style,
                        rightStyle: isSelected ? style : Style(.dim))
                    row += 1
                    continue
                }
                let title = p.tr(option.title)
                let titleWidth = min(inner / 2, max(18, p.width(title)))
                p.put(title, column: column + 2, row: row, style: style, width: titleWidth)
                p.put(
                    p.tr(option.detail), column: column + 3 + titleWidth, row: row, style: isSelected ? style : Style(.dim),
                    width: inner - titleWidth - 3)
                row += 1
            }
            return
        }

        let selectedAt = sheet.rows.firstIndex(of: sheet.selectedRow) ?? 0
        for (at, sheetRow) in sheet.rows.enumerated() where row < bottomLimit {
            let isSelected = sheetRow == sheet.selectedRow && sheet.authorizationPrompt == nil
            let style: Style
            if sheet.authorizationPrompt == nil && !sheet.isBusy {
                style = p.selectableRow(
                    row: row, band: column, width: inner, fromSelected: at - selectedAt, showsMarker: false)
            } else {
                style = .normal
            }
            // The row Pay sent the shopper to is marked, as Apple's sheet marks a field in red.
            let isMarked = sheet.markedRow == sheetRow
            p.put(
                p.tr(sheetRow.title), column: column, row: row, style: isMarked ? Style(.error, bold: true) : isSelected ? style : Style(.dim),
                width: labelWidth)
            // Listed under it, the Items row says how many; folded, what it holds.
            let value = sheetRow == .items && itemsOpen ? sheet.itemCountWords : sheet.rowValues[sheetRow]
            p.put(value.map { p.tr($0) } ?? "", column: column + labelWidth, row: row, style: style, width: inner - labelWidth - 2)
            p.put(p.glyphs.chevron, column: column + inner - 1, row: row, style: isSelected ? style : Style(.dim))
            row += 1
            if sheetRow == .items, itemsOpen { row = drawItems(sheet.items, column: column + labelWidth, row: row, width: inner - labelWidth, &p) }
            // Compact, the rows give way to the total: the error takes one line, cut where it does not fit.
            let lines = compact ? sheet.rowErrors[sheetRow].map { ["! " + p.tr($0)] } ?? [] : errorLines[sheetRow] ?? []
            for line in lines where row < bottomLimit {
                p.put(line, column: column + labelWidth, row: row, style: Style(.error, bold: true), width: inner - labelWidth)
                row += 1
            }
        }
        if !compact { row += 1 }
        let items = compact ? Array(sheet.summaryItems.suffix(1)) : sheet.summaryItems
        for (index, item) in items.enumerated() where row < bottomLimit {
            let isTotal = index == items.count - 1
            let label = isTotal ? p.tr("Pay \(item.label)") : p.tr(item.label)
            let amount = item.kind == .pending ? p.tr("Amount pending") : p.money(item.amount)
            let style = isTotal ? Style(.price, bold: true) : .normal
            p.putSpread(label, amount, column: column, row: row, width: inner, leftStyle: style, rightStyle: style)
            row += 1
        }
        if !compact { row += 1 }
        if sheet.authorizationPrompt != nil {
            if let status = sheet.status, !compact {
                p.put(p.tr(status), column: column, row: row - 1, style: Style(.accent), width: inner)
            }
            for line in promptLines where row < body.bottom {
                p.put(line, column: column, row: row, style: Style(.accent, bold: true), width: inner)
                row += 1
            }
            return
        }
        guard row < bottomLimit || (compact && row < body.bottom) else { return }
        var statusColumn = column
        if sheet.isBusy {
            statusColumn += p.spinner(phase: state.spinnerPhase, column: column, row: row)
        }
        let buttonStyle = sheet.isPayEnabled || sheet.offersCardSetup ? Style(.accent, bold: true) : Style(.dim)
        let buttonWidth = p.width(button)
        if let status = sheet.status {
            let style = sheet.isStatusError ? Style(.error, bold: true) : Style(.accent)
            // A failure the shopper must read in full wraps above the button; a busy status or a compact sheet keeps one line.
            let lines = compact || sheet.isBusy ? [p.tr(status)] : statusLines
            for (index, line) in lines.enumerated() {
                // The button goes on the last line drawn.
                if index > 0 {
                    guard row + 1 < bottomLimit else { break }
                    row += 1
                }
                p.put(line, column: statusColumn, row: row, style: style, width: inner - (statusColumn - column) - buttonWidth - 1)
            }
        }
        if !sheet.isBusy {
            p.putRight(button, end: column + inner, row: row, style: buttonStyle)
            // The button is the key it stands for: Enter sets up a card, p pays (or says what is missing).
            p.target(.key(sheet.offersCardSetup ? .enter : .character("p")), row: row, columns: (column + inner - buttonWidth)..<(column + inner))
        }
    }

    /// The sheet's lines under its Items row, each with its price, and a subscription's schedule under it; returns the
    /// row after them.
    private static func drawItems(_ items: [SheetItem], column: Int, row start: Int, width: Int, _ p: inout Painter) -> Int {
        var row = start
        for item in items {
            p.putSpread(
                p.tr(item.title), p.money(item.amount), column: column, row: row, width: width, leftStyle: Style(.dim), rightStyle: Style(.dim))
            row += 1
            if let schedule = item.schedule {
                p.put(p.tr(schedule), column: column + 2, row: row, style: Style(.dim), width: width - 2)
                row += 1
            }
        }
        return row
    }

    /// The consent prompt in `width`: one line when it fits, else the question and the keys on lines of their own.
    private static func promptLines(_ sheet: PaymentSheetState, width: Int, _ p: Painter) -> [String] {
        guard let prompt = sheet.authorizationPrompt.map({ p.tr($0) }) else { return [] }
        guard p.width(prompt) > width, let question = prompt.firstRange(of: "? ") else { return p.wrapped(prompt, width: width) }
        return p.wrapped(prompt[..<question.lowerBound] + "?\n" + prompt[question.upperBound...], width: width)
    }

    /// The sheet's status wrapped to the room left of the button; empty when there is no status.
    private static func statusLines(_ sheet: PaymentSheetState, button: String, width: Int, _ p: Painter) -> [String] {
        guard let status = sheet.status.map({ p.tr($0) }), !sheet.isBusy else { return [] }
        return p.wrapped(status, width: max(1, width - p.width(button) - 1))
    }
}
