import Foundation
import StorefrontTesting
import StorefrontUI
import Testing

@testable import TerminalNCurses

/// Random frames encoded one after another and played through an independent VT emulator (pyte).
extension FrameEncoderTests {
    /// The roles text is written in; a picture's cells come from `Frame.draw(_:in:)` with their own colours
    /// (FrameEncoderPictureTests).
    static let textRoles = StyleRole.allCases.filter { $0 != .picture }

    /// A small seeded generator, so a failure names the frames that caused it.
    struct Seeded: RandomNumberGenerator {
        var state: UInt64
        mutating func next() -> UInt64 {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return state ^ (state >> 29)
        }
    }

    static let pieces = ["shop", "cart", "$12.00", "中文", "│", "›", "e\u{301}", "  ", "         ", "·", "x"]

    static func randomFrame(_ size: Size, from previous: Frame?, using random: inout Seeded) -> Frame {
        // A third of the frames scroll a band of the one before, and change a row or two, as a list does.
        if var frame = previous, Int.random(in: 0..<3, using: &random) == 0 {
            let top = Int.random(in: 0..<(size.rows - 2), using: &random)
            let bottom = Int.random(in: (top + 2)..<size.rows, using: &random)
            frame.scroll(top...bottom, by: [-3, -2, -1, 1, 2, 3].randomElement(using: &random)!)
            for _ in 0..<Int.random(in: 0..<3, using: &random) {
                frame.put(
                    pieces.randomElement(using: &random)!, column: Int.random(in: 0..<(size.columns - 6), using: &random),
                    row: Int.random(in: 0..<size.rows, using: &random), style: Style(.price))
            }
            return frame
        }
        // Half the rows are kept, as most of a real frame is.
        var frame = Frame(size: size)
        for row in 0..<size.rows {
            if let previous, Bool.random(using: &random) {
                var column = 0
                while column < size.columns {
                    let cell = previous[column, row]
                    if cell.isContinuation {
                        column += 1
                        continue
                    }
                    column += max(1, frame.put(cell.text, column: column, row: row, style: cell.style))
                }
                continue
            }
            if Int.random(in: 0..<4, using: &random) == 0 {
                frame.fill(row: row, style: Style(Self.textRoles.randomElement(using: &random)!))
            }
            var column = Int.random(in: 0..<4, using: &random)
            while column < size.columns - 1 {
                let style = Style(
                    Self.textRoles.randomElement(using: &random)!, bold: Bool.random(using: &random),
                    underline: Int.random(in: 0..<5, using: &random) == 0)
                column +=
                    frame.put(pieces.randomElement(using: &random)!, column: column, row: row, style: style) + Int.random(in: 0..<3, using: &random)
            }
        }
        return frame
    }

    @Test(
        "random frames, encoded one after another, show what the frames hold",
        arguments: [
            (AnsiDialect.xterm(.color256), UInt64(1)), (AnsiDialect.xterm(.color8), UInt64(2)), (AnsiDialect.xterm(.monochrome), UInt64(3)),
            (
                AnsiDialect(
                    colorMode: .color256, erasesInBackground: false, erasesCharacters: false, movesForward: false, movesLines: false,
                    resetAndClear: Array("\u{1B}[m\u{0F}\u{1B}[H\u{1B}[J".utf8)), UInt64(4)
            ),
        ])
    func randomFramesPlayBackAsTheyWereLaidOut(dialect: AnsiDialect, seed: UInt64) throws {
        let size = Size(columns: 30, rows: 8)
        var random = Seeded(state: seed)
        var encoder = Self.encoder(dialect)
        var frames: [Frame] = []
        var events: [String] = []
        for index in 0..<60 {
            let frame = Self.randomFrame(size, from: frames.last, using: &random)
            // Now and then the terminal's state is lost, as after a marker or a resize.
            if index % 17 == 16 { encoder.forget() }
            encoder.encode(from: index % 23 == 22 ? nil : frames.last, to: frame)
            frames.append(frame)
            events.append(String(decoding: encoder.output, as: UTF8.self))
        }
        let movedLines = events.filter { $0.contains(/\e\[\d*[LM]/) }.count
        #expect(dialect.movesLines ? movedLines > 3 : movedLines == 0, "scrolled bands were moved by the terminal \(movedLines) times")
        let played = try Self.play(events, size: size)
        try #require(played.count == frames.count)
        var pyteStyle: [RoleLook: String] = [:]
        var lookOf: [String: RoleLook] = [:]
        var pyteBackground: [Int16: String] = [:]
        for (index, (frame, screen)) in zip(frames, played).enumerated() {
            let expected = frame.lines.map { $0.replacingOccurrences(of: "\\s+$", with: "", options: .regularExpression) }
            #expect(screen.rows == expected, "frame \(index) of seed \(seed) plays back otherwise")
            for row in 0..<size.rows {
                for column in 0..<size.columns where !frame[column, row].isContinuation {
                    let cell = frame.packed[row * size.columns + column]
                    var look = Theme.look(for: cell.role, in: dialect.colorMode)
                    look.bold = look.bold || cell.isBold
                    look.underline = look.underline || cell.isUnderlined
                    // pyte keeps no faint attribute: dim is checked byte for byte above instead.
                    look.dim = false
                    let shown = screen.styles[row][column]
                    // Blanks show only their background: their colour and weight need not match, the background must.
                    let background = String(shown.split(separator: ",")[1])
                    if let known = pyteBackground[look.background] {
                        #expect(known == background, "frame \(index), row \(row), column \(column): background")
                    }
                    pyteBackground[look.background] = background
                    if cell.code == 0x20, !look.underline, !look.reverse { continue }
                    if let known = pyteStyle[look] { #expect(known == shown, "frame \(index), row \(row), column \(column): \(look)") }
                    if let known = lookOf[shown] { #expect(known == look, "frame \(index), row \(row), column \(column): \(shown) shows two pens") }
                    pyteStyle[look] = shown
                    lookOf[shown] = look
                }
            }
        }
        #expect(pyteStyle[RoleLook()] == nil || pyteStyle[RoleLook()] == "default,default,0,0,0")
    }

    /// Each event's screen rows and cell styles, as pyte shows them.
    static func play(_ events: [String], size: Size) throws -> [(rows: [String], styles: [[String]])] {
        var cast = #"{"version": 2, "width": \#(size.columns), "height": \#(size.rows)}"# + "\n"
        for (index, event) in events.enumerated() {
            let data = try JSONSerialization.data(withJSONObject: [Double(index) / 10, "o", event] as [Any])
            cast += String(decoding: data, as: UTF8.self) + "\n"
        }
        let file = TemporaryDirectory.make().path + ".cast"
        try cast.write(toFile: file, atomically: true, encoding: .utf8)
        let played = try Subprocess.run(CastTests.root.appendingPathComponent("scripts/cast-play").path, ["--styles", file])
        try #require(played.status != 69, "the VT emulator is missing: install the Python package pyte (python3 -m pip install pyte)")
        try #require(played.status == 0, "cast-play failed: \(played.stderr)")
        return played.stdout.split(separator: /--- event \d+ at [\d.]+ s ---\n/).map { event in
            let parts = event.split(separator: "--- styles ---\n", maxSplits: 1)
            let rows = parts[0].split(separator: "\n", omittingEmptySubsequences: false).prefix(size.rows).map(String.init)
            let styles = parts[1].split(separator: "\n").map { $0.split(separator: "|").map(String.init) }
            return (rows, styles)
        }
    }
}
