import CNCurses
import Foundation
import LiveObjects
import StorefrontUI

/// The shop's terminal drawing aimed at a file instead of a terminal, so a benchmark can time a frame's
/// two output stages apart and count the bytes they would send.
///
/// Order of calls: `init` → per frame `prepare` then `send` → `bytesWritten` at any time → `close`.
@MainActor
public final class OffscreenCurses {
    private let screen: NCursesScreen
    private let output: Int32
    /// `cheapestSGR` by pen, worked out once: the benchmark asks for every changed cell.
    private let cheapestSGRByPen: [Int]

    /// A screen of `size` as terminal type `term` (xterm-256color unless told), in the shop's colours.
    /// `direct`: frames go out as the shop's own bytes, as in a session on an ANSI terminal; otherwise through
    /// curses' `doupdate`.
    public init(size: Size, term: String = "xterm-256color", direct: Bool = true) throws {
        var template = Array("\(NSTemporaryDirectory())/storefront-offscreen-XXXXXX".utf8CString)
        let fd = mkstemp(&template)
        guard fd >= 0 else { throw TerminalError.startFailed("mkstemp: \(String(cString: strerror(errno)))") }
        template.withUnsafeBufferPointer { _ = unlink($0.baseAddress!) }
        output = fd
        screen = try NCursesScreen(offscreen: size, term: term, outputFD: fd, theme: .color, direct: direct)
        if direct && !screen.writesDirectly {
            screen.restore()
            throw TerminalError.startFailed("\(term) does not pass the ANSI check")
        }
        let looks = FrameEncoder.penLooks(screen.colorMode)
        cheapestSGRByPen = looks.map { target in
            looks.filter { $0 != target }.map { FrameEncoder.sgr(from: $0, to: target).count }.min() ?? 0
        }
    }

    /// Stage 1: the change since the last frame worked out (the shop's bytes, or cells written into curses).
    public func prepare(_ frame: Frame) { screen.prepare(frame) }

    /// Stage 2: the change sent (one write, or `doupdate`).
    public func send() { screen.send() }

    /// The fewest bytes of SGR that put the terminal in `cell`'s pen, from whichever other pen is cheapest.
    public func cheapestSGR(into cell: PackedCell) -> Int {
        cheapestSGRByPen[pen(of: cell)]
    }

    /// The pen `cell` is drawn in, numbered as the encoder numbers them: cells with the same pen need the same SGR.
    public func pen(of cell: PackedCell) -> Int { FrameEncoder.penIndex(cell) }

    /// Every byte written so far.
    public var bytesWritten: Int { Int(lseek(output, 0, SEEK_CUR)) }

    /// Ends curses; the file goes with it.
    public func close() { screen.restore() }
}

extension OffscreenCurses: LiveObject {}
