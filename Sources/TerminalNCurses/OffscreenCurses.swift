import CNCurses
import Foundation
import StorefrontUI

/// The shop's terminal drawing aimed at a file instead of a terminal, so a benchmark can time a frame's
/// two output stages apart and count the bytes they would send.
///
/// Order of calls: `init` → per frame `prepare` then `send` → `bytesWritten` at any time → `close`.
@MainActor
public final class OffscreenCurses {
    private let screen: NCursesScreen
    private let output: Int32

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
    }

    /// Stage 1: the change since the last frame worked out (the shop's bytes, or cells written into curses).
    public func prepare(_ frame: Frame) { screen.prepare(frame) }

    /// Stage 2: the change sent (one write, or `doupdate`).
    public func send() { screen.send() }

    /// The fewest bytes of SGR that put the terminal in `cell`'s pen, from whichever other pen is cheapest.
    public func cheapestSGR(into cell: PackedCell) -> Int {
        let mode = screen.colorMode
        func look(_ role: StyleRole, bold: Bool, underline: Bool) -> RoleLook {
            var look = Theme.look(for: role, in: mode)
            look.bold = look.bold || bold
            look.underline = look.underline || underline
            return look
        }
        let target = look(cell.role, bold: cell.isBold, underline: cell.isUnderlined)
        var cheapest = Int.max
        for role in StyleRole.allCases {
            for bold in [false, true] {
                for underline in [false, true] {
                    let from = look(role, bold: bold, underline: underline)
                    if from != target { cheapest = min(cheapest, FrameEncoder.sgr(from: from, to: target).count) }
                }
            }
        }
        return cheapest == Int.max ? 0 : cheapest
    }

    /// Every byte written so far.
    public var bytesWritten: Int { Int(lseek(output, 0, SEEK_CUR)) }

    /// Ends curses; the file goes with it.
    public func close() { screen.restore() }
}
