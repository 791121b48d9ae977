import ShopLanguages
import ShopModels
import ShopPorts
import StorefrontCore

/// The forms: a card, an address, a sign-in's questions, and a sign-in's link with its QR code.
extension Layout {
    /// The link's QR code, when it does not fit below the text but does to its right (a standard 80x24 window).
    private static func qrCodeBeside(_ form: FormState, _ body: BodyRect, _ p: inout Painter) -> (code: QRCode, side: Int)? {
        guard let link = form.link, let code = form.qrCode, p.frame.charset == .unicode else { return nil }
        let width = min(body.width - 4, 90)
        let side = code.size + 4
        let below = p.wrapped(p.tr(form.message), width: width).count + 1 + (link.count + width - 1) / width + 1 + (side + 1) / 2
        guard below > body.height - 2, (side + 1) / 2 < body.height, body.width - 4 - side - 2 >= 30 else { return nil }
        return (code, side)
    }

    static func drawForm(_ state: StorefrontState, _ body: BodyRect, _ p: inout Painter) {
        guard let form = state.form else { return }
        let column = 2
        let width = min(body.width - 4, 90)
        let labelWidth = min(max(16, width / 5), (form.fields.map { p.width(p.tr($0.label)) }.max() ?? 0) + 2)
        let valueWidth = max(8, width - labelWidth - 2)
        // Each field is one row, plus one for its error; the message and the status fill the rest.
        var fieldLines: [(field: Int, isError: Bool)] = []
        for (index, field) in form.fields.enumerated() {
            fieldLines.append((index, false))
            if field.error != nil { fieldLines.append((index, true)) }
        }
        let beside = Self.qrCodeBeside(form, body, &p)
        let textWidth = beside.map { body.width - 4 - $0.side - 2 } ?? width
        let messageLines = p.wrapped(p.tr(form.message), width: textWidth)
        // A link is no use cut short: its rows come before the message's.
        let linkRows = form.link.map { ($0.count + textWidth - 1) / max(1, textWidth) + 1 } ?? 0
        let spare = body.height - fieldLines.count - 2 - linkRows
        let shownMessage = spare > 0 ? Array(messageLines.prefix(spare)) : []
        var row = body.top
        for line in shownMessage {
            p.put(line, column: column, row: row, style: Style(.dim), width: textWidth)
            row += 1
        }
        if !shownMessage.isEmpty { row += 1 }
        if let link = form.link {
            row = p.link(link, qrCode: beside == nil ? form.qrCode : nil, column: column, from: row, above: body.bottom - 1, width: textWidth)
        }
        // Beside the text, the code may reach the status row: the status is short and on the left.
        if let beside { _ = p.drawQRCode(beside.code, column: body.width - 2 - beside.side, from: body.top, above: body.bottom) }
        let room = max(1, body.bottom - row - 1)
        let focusedLine = fieldLines.firstIndex { $0.field == form.focusedIndex && !$0.isError } ?? 0
        let start = min(max(0, focusedLine - room + 2), max(0, fieldLines.count - room))
        for line in fieldLines.dropFirst(start).prefix(room) {
            let field = form.fields[line.field]
            if line.isError {
                p.put(
                    "! " + (field.error.map { p.tr($0) } ?? ""), column: column + labelWidth + 2, row: row, style: Style(.error, bold: true),
                    width: valueWidth)
                row += 1
                continue
            }
            let isFocused = line.field == form.focusedIndex
            let style = isFocused ? Style(.selection, bold: true) : .normal
            // A click on a field moves the focus there, as the arrows would.
            p.target(.listRow(offset: line.field - form.focusedIndex, opens: false), row: row, columns: column..<(column + width))
            p.put(isFocused ? p.glyphs.marker : " ", column: column, row: row, style: isFocused ? Style(.accent, bold: true) : .normal)
            p.put(p.tr(field.label), column: column + 2, row: row, style: field.error != nil ? Style(.error) : Style(.dim), width: labelWidth)
            let isChoice = !field.options.isEmpty
            let shown =
                isChoice
                ? "\(field.value) \(p.glyphs.chevron)" : field.isMasked ? String(repeating: p.glyphs.bullet, count: field.value.count) : field.value
            let cursor = isFocused && !form.isBusy && !isChoice ? "_" : ""
            // The end of a long value stays in view while typing.
            var text = shown + cursor
            while p.width(text) > valueWidth, !text.isEmpty { text.removeFirst() }
            if isFocused { p.fill(row: row, column: column + labelWidth + 2, width: valueWidth, style: style) }
            let used = p.put(text, column: column + labelWidth + 2, row: row, style: style, width: valueWidth)
            if field.value.isEmpty || isChoice, !field.hint.key.isEmpty, used + 2 < valueWidth {
                p.put(
                    p.tr(field.hint), column: column + labelWidth + 2 + used + 1, row: row, style: isFocused ? style : Style(.dim),
                    width: valueWidth - used - 1)
            }
            row += 1
        }
        let statusRow = body.bottom - 1
        guard statusRow >= row else { return }
        var statusColumn = column
        if form.isInProgress {
            statusColumn += p.spinner(phase: state.spinnerPhase, column: column, row: statusRow)
        }
        let button = "[ \(p.tr(form.submitLabel)) ]"
        if let status = form.status {
            p.put(
                p.tr(status), column: statusColumn, row: statusRow, style: form.isStatusError ? Style(.error, bold: true) : Style(.accent),
                width: width - p.width(button) - 1 - (statusColumn - column))
        }
        if !form.isInProgress {
            p.putRight(button, end: column + width, row: statusRow, style: form.isOnLastField ? Style(.accent, bold: true) : Style(.dim))
            // The button submits: from another field, down to the last one first, as Enter submits only there.
            let toLast = Array(repeating: Key.down, count: max(0, form.fields.count - 1 - form.focusedIndex))
            p.target(.keys(toLast + [.enter]), row: statusRow, columns: (column + width - p.width(button))..<(column + width))
        }
    }
}
