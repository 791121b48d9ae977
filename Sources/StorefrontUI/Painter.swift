import Foundation
import ShopLanguages
import ShopModels

/// Draws text into a frame with the charset's glyphs, measuring widths as they will be shown.
struct Painter {
    var frame: Frame
    let glyphs: Glyphs
    /// The session's language, in which `tr` writes every word a shopper reads.
    let translation: Translation
    /// The frame before this one, at the same size and charset: cells a screen knows to be the same are copied from it.
    let previous: Frame?

    init(size: Size, charset: Charset, pictures: PictureSupport = .art, formats: FormatLocale = .unitedStates, previous: Frame? = nil) {
        frame = Frame(size: size, charset: charset)
        frame.formats = formats
        let support = charset == .unicode ? pictures : .art
        frame.pictureSupport = support
        glyphs = Glyphs(charset)
        translation = Translation.for(formats.language).inRegion(formats.region)
        self.previous = previous.flatMap {
            $0.size == size && $0.charset == charset && $0.formats == formats && $0.pictureSupport == support ? $0 : nil
        }
    }

    /// How this frame shows pictures.
    var pictures: PictureSupport { frame.pictureSupport }

    /// `words` in the session's language.
    func tr(_ words: Localized) -> String { translation.string(words) }

    /// `amount` as the shopper's locale writes money: `$1,234.50`, `1.234,50 €`, `￥1,200`.
    func money(_ amount: Money) -> String { translation.money(amount) }

    /// A moment to the minute in UTC as the shopper's locale writes it: `2026-11-22 14:05`, `22.11.2026, 14:05`.
    func minute(_ date: Date) -> String {
        translation.formats.writesAsBefore ? UTCTime(date).minutes : translation.formats.minute(date)
    }

    /// A key's label as the session's language names it: `Enter`, `Esc` and the like translated, `q` or `↑/k` kept.
    func keyName(_ label: String) -> String {
        guard let name = Self.keyNames[label] else { return label }
        return tr(name)
    }

    /// The keys with names a keyboard in another language may print otherwise.
    static let keyNames: [String: Localized] = [
        // TRANSLATORS: key names, as the keyboards of the language print them; keep them short.
        "Enter": Localized("Enter"), "Esc": Localized("Esc"), "Tab": Localized("Tab"), "Tab/→": Localized("Tab/→"),
        "PgUp": Localized("PgUp"), "PgDn": Localized("PgDn"), "Home": Localized("Home"), "End": Localized("End"),
    ]

    var size: Size { frame.size }

    /// Columns `text` takes once sanitized and, in ASCII mode, transliterated.
    func width(_ text: String) -> Int { Self.width(text, charset: frame.charset) }

    /// Columns `text` takes in `charset`: for a closure that must not hold the painter (and so a second
    /// reference to the frame's cells, which would make the next write copy them all).
    static func width(_ text: String, charset: Charset) -> Int {
        if TerminalText.isPrintableASCII(text) { return text.utf8.count }
        if charset == .unicode, TerminalText.isOneColumnPerScalar(text) { return text.unicodeScalars.count }
        if charset == .unicode, TerminalText.isSafe(text) { return text.reduce(0) { $0 + TerminalText.width(of: $1) } }
        return TerminalText.displayable(text, charset: charset).reduce(0) { $0 + TerminalText.width(of: $1) }
    }

    /// `text` cut to `width` columns, ending in an ellipsis when cut.
    func truncated(_ text: String, to width: Int) -> String {
        guard width > 0 else { return "" }
        if TerminalText.isPrintableASCII(text) {
            let count = text.utf8.count
            if count <= width { return text }
            return String(decoding: text.utf8.prefix(width - glyphs.ellipsisWidth), as: UTF8.self) + glyphs.ellipsis
        }
        if frame.charset == .unicode, TerminalText.isOneColumnPerScalar(text) {
            if text.unicodeScalars.count <= width { return text }
            let kept = String(String.UnicodeScalarView(text.unicodeScalars.prefix(width - glyphs.ellipsisWidth)))
            // Cut just after an ellipsis the text had already ("SHA256:X+MyQ0G…"): one is enough.
            return kept.hasSuffix(glyphs.ellipsis) ? kept : kept + glyphs.ellipsis
        }
        let characters = TerminalText.displayable(text, charset: frame.charset)
        var total = 0
        for character in characters { total += TerminalText.width(of: character) }
        if total <= width { return String(characters) }
        var out = ""
        var used = 0
        let room = width - glyphs.ellipsisWidth
        for character in characters {
            let w = TerminalText.width(of: character)
            if used + w > room { break }
            out.append(character)
            used += w
        }
        return out.hasSuffix(glyphs.ellipsis) ? out : out + glyphs.ellipsis
    }

    /// Splits `text` into lines of at most `width` columns at spaces; paragraphs stay apart.
    func wrapped(_ text: String, width: Int) -> [String] {
        guard width > 0 else { return [] }
        // Printable ASCII is split and measured as bytes, a column a byte, not walked by Characters with each word made a
        // `String` to measure: a preview's description is wrapped at every move.
        let isASCII = text.utf8.allSatisfy { $0 == UInt8(ascii: "\n") || ($0 >= 0x20 && $0 < 0x7F) }
        let paragraphs: [[Substring]] =
            isASCII
            ? text.utf8.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false).map { paragraph in
                paragraph.split(separator: UInt8(ascii: " ")).map { Substring($0) }
            }
            : text.split(separator: "\n", omittingEmptySubsequences: false).map { $0.split(separator: " ") }
        var lines: [String] = []
        for words in paragraphs {
            var line = ""
            var lineWidth = 0
            for word in words {
                let w = isASCII ? word.utf8.count : self.width(String(word))
                if lineWidth > 0, lineWidth + 1 + w > width {
                    lines.append(line)
                    line = ""
                    lineWidth = 0
                }
                if w > width {
                    // A word longer than the line is cut rather than overflowing.
                    if lineWidth > 0 { lines.append(line) }
                    lines.append(truncated(String(word), to: width))
                    line = ""
                    lineWidth = 0
                    continue
                }
                if lineWidth > 0 {
                    line += " "
                    lineWidth += 1
                }
                line += word
                lineWidth += w
            }
            lines.append(line)
        }
        return lines
    }

    @discardableResult
    mutating func put(_ text: String, column: Int, row: Int, style: Style = .normal, width: Int? = nil) -> Int {
        let limit = width ?? (size.columns - column)
        return frame.put(truncated(text, to: limit), column: column, row: row, style: style, limit: limit)
    }

    /// Writes `text` so that it ends at column `end` (exclusive).
    mutating func putRight(_ text: String, end: Int, row: Int, style: Style = .normal) {
        let w = width(text)
        frame.put(text, column: end - w, row: row, style: style)
    }

    /// A row with `left` text and `right` text aligned to the right edge of the span.
    mutating func putSpread(
        _ left: String, _ right: String, column: Int, row: Int, width: Int, leftStyle: Style = .normal, rightStyle: Style = .normal
    ) {
        let rightWidth = self.width(right)
        put(left, column: column, row: row, style: leftStyle, width: max(0, width - rightWidth - 1))
        putRight(right, end: column + width, row: row, style: rightStyle)
    }

    mutating func fill(row: Int, column: Int = 0, width: Int? = nil, height: Int = 1, style: Style = .normal) {
        frame.fill(row: row, column: column, width: width, height: height, style: style)
    }

    /// Copies `columns` (every column unless told) of `rows` from the previous frame into the same places.
    mutating func copyFromPrevious(rows: Range<Int>, columns: Range<Int>? = nil) {
        guard let previous else { return }
        for row in rows { frame.copyCells(of: previous, row: row, columns: columns ?? 0..<size.columns, to: row) }
    }

    /// The charset's vertical line down `column` over `rows`: the glyph is made safe and measured once.
    mutating func verticalLine(column: Int, rows: Range<Int>, style: Style) {
        guard let first = rows.first else { return }
        frame.put(glyphs.vertical, column: column, row: first, style: style)
        frame.repeatCell(column: column, row: first, into: rows.dropFirst())
    }

    /// A box outline with an optional title in the top edge.
    mutating func box(column: Int, row: Int, width: Int, height: Int, title: String? = nil, style: Style = Style(.border)) {
        guard width >= 2, height >= 2 else { return }
        let g = glyphs
        let horizontal = String(repeating: g.horizontal, count: width - 2)
        frame.put(g.topLeft + horizontal + g.topRight, column: column, row: row, style: style)
        verticalLine(column: column, rows: (row + 1)..<(row + height - 1), style: style)
        verticalLine(column: column + width - 1, rows: (row + 1)..<(row + height - 1), style: style)
        frame.put(g.bottomLeft + horizontal + g.bottomRight, column: column, row: row + height - 1, style: style)
        if let title {
            put(" \(title) ", column: column + 2, row: row, style: Style(.title, bold: true), width: width - 4)
        }
    }
}

/// The drawing characters for a charset.
struct Glyphs {
    let horizontal, vertical, topLeft, topRight, bottomLeft, bottomRight: String
    let marker, chevron, ellipsis, bullet, check, separator: String
    let ellipsisWidth: Int
    let spinner: [String]

    init(_ charset: Charset) {
        switch charset {
        case .unicode:
            (horizontal, vertical, topLeft, topRight, bottomLeft, bottomRight) = ("─", "│", "╭", "╮", "╰", "╯")
            (marker, chevron, ellipsis, bullet, check, separator) = ("›", "›", "…", "•", "✓", "·")
            ellipsisWidth = 1
            spinner = ["⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"]
        case .ascii:
            (horizontal, vertical, topLeft, topRight, bottomLeft, bottomRight) = ("-", "|", "+", "+", "+", "+")
            (marker, chevron, ellipsis, bullet, check, separator) = (">", ">", "~", "*", "v", "-")
            ellipsisWidth = 1
            spinner = ["|", "/", "-", "\\"]
        }
    }
}

extension Translation {
    /// `amount` as the shopper's locale writes money: `$1,234.50`, `1.234,50 €`, `￥1,200`.
    func money(_ amount: Money) -> String {
        money(minorUnits: amount.minorUnits, currency: amount.currency.code, exponent: amount.currency.exponent, english: amount.formatted)
    }
}
