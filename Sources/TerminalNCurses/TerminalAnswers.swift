import StorefrontUI

/// What a terminal answered the shop's questions about what it draws.
enum TerminalAnswer: Equatable, Sendable {
    /// Its primary device attributes (DA1, `ESC [ ? 62 ; 4 c`): 4 is sixel.
    case deviceAttributes([Int])
    /// Its answer to kitty's graphics query: true where it keeps images (`OK`), false for an error.
    case kittyGraphics(Bool)
}

/// The questions a session asks its terminal when nothing else says what it draws (over SSH, where the client's
/// environment stays on the client): kitty's graphics query, then DA1, which every terminal answers, so kitty's answer,
/// where there is one, comes first. A terminal that knows neither APC nor kitty's protocol ignores the query.
enum TerminalQuestions {
    /// kitty's query (`a=q`) about a 1 × 1 image, id 31, sent directly; then DA1.
    static let pictures = "\u{1B}_Gi=31,s=1,v=1,a=q,t=d,f=24;AAAA\u{1B}\\\u{1B}[c"
    /// How long after the questions an answer changes how pictures are drawn: a later one (a slow link) is dropped, so
    /// a shopper's screen never changes its pictures' kind halfway through browsing.
    static let deadline = Duration.seconds(2)
}

extension NCursesScreen {
    /// After an ESC: an answer to a question the shop asked, whole. The background's (`] 11 ; …` then BEL or ST) is
    /// read by `BackgroundProbe` where it waits; here it says nothing. DA1's (`[ ? …` then `c`) and kitty's (`_ G …`
    /// then ST) say what the terminal draws. Returns the answer and how many characters it took; nil when `rest` does
    /// not begin one.
    static func terminalAnswer(_ rest: ArraySlice<(isKeyCode: Bool, value: UInt32)>) -> (TerminalAnswer?, Int)? {
        let text = rest.prefix(256).prefix { !$0.isKeyCode }.map(\.value)
        if text.starts(with: Array("]11;".unicodeScalars.map(\.value))) {
            guard let end = stringEnd(text, from: 4) else { return nil }
            return (nil, end)
        }
        if text.starts(with: Array("_G".unicodeScalars.map(\.value))) {
            guard let end = stringEnd(text, from: 2) else { return nil }
            let body = String(decoding: text[2..<end].compactMap { UInt8(exactly: $0) }, as: UTF8.self)
            return (.kittyGraphics(body.contains(";OK")), end)
        }
        if text.starts(with: Array("[?".unicodeScalars.map(\.value))) {
            for (offset, value) in text.enumerated().dropFirst(2) {
                if value == 0x63 {
                    guard offset > 2 else { return nil }
                    let fields = String(decoding: text[2..<offset].compactMap { UInt8(exactly: $0) }, as: UTF8.self)
                    return (.deviceAttributes(fields.split(separator: ";").compactMap { Int($0) }), offset + 1)
                }
                guard (0x30...0x39).contains(value) || value == 0x3B else { return nil }
            }
        }
        return nil
    }

    /// Where a string that began at `start` ends: after its BEL, or after ESC `\` (ST); nil when it has not ended or
    /// holds a control character.
    private static func stringEnd(_ text: [UInt32], from start: Int) -> Int? {
        var offset = start
        while offset < text.count {
            let value = text[offset]
            if value == 7 { return offset + 1 }
            if value == 27 { return offset + 1 < text.count && text[offset + 1] == 0x5C ? offset + 2 : nil }
            guard value >= 0x20, value < 0x7F else { return nil }
            offset += 1
        }
        return nil
    }
}

extension PictureCapabilities {
    /// How pictures are drawn once the terminal answered: a mosaic becomes kitty's protocol where kitty's query was
    /// answered OK, or sixel where DA1 lists 4; anything else stays as it is.
    static func learned(_ answer: TerminalAnswer, current: PictureSupport) -> PictureSupport {
        guard current == .mosaic else { return current }
        switch answer {
        case .kittyGraphics(true): return .kitty
        case .deviceAttributes(let attributes) where attributes.contains(4): return .sixel
        case .kittyGraphics(false), .deviceAttributes: return current
        }
    }

    /// Whether a session should ask its terminal: where it would draw a mosaic, and nothing (the variable, a
    /// multiplexer, which passes no pixels on, a recorder, whose recording stays text) has said otherwise.
    static func asks(current: PictureSupport, environment: [String: String]) -> Bool {
        let term = environment["TERM"] ?? ""
        let multiplexed = environment["TMUX"] != nil || term.hasPrefix("screen") || term.hasPrefix("tmux")
        let recorded = environment[TerminalSession.settledMarkerVariable] != nil || environment[TerminalSession.privateMarkersVariable] != nil
        return current == .mosaic && environment[variable] == nil && !multiplexed && !recorded
    }
}
