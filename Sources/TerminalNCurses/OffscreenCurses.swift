import CNCurses
import Foundation
import StorefrontUI

/// The shop's curses drawing aimed at a file instead of a terminal, so a benchmark can time a frame's
/// two curses stages apart and count the bytes they would send.
///
/// Order of calls: `init` → per frame `writeChanges` then `update` → `bytesWritten` at any time → `close`.
@MainActor
public final class OffscreenCurses {
    private let screen: NCursesScreen
    private let output: Int32

    /// A screen of `size` as terminal type `term` (xterm-256color unless told), in the shop's colours.
    public init(size: Size, term: String = "xterm-256color") throws {
        var template = Array("\(NSTemporaryDirectory())/storefront-offscreen-XXXXXX".utf8CString)
        let fd = mkstemp(&template)
        guard fd >= 0 else { throw TerminalError.startFailed("mkstemp: \(String(cString: strerror(errno)))") }
        template.withUnsafeBufferPointer { _ = unlink($0.baseAddress!) }
        output = fd
        screen = try NCursesScreen(offscreen: size, term: term, outputFD: fd, theme: .color)
    }

    /// Stage 1: the cells that changed since the last frame, written into curses' virtual screen.
    public func writeChanges(_ frame: Frame) { screen.writeChanges(frame) }

    /// Stage 2: `doupdate`, which works out and writes the bytes that bring the terminal up to date.
    public func update() { screen.update() }

    /// The bytes a careful encoder would write from `old` to `new` (see `ReferenceUpdate`), in this screen's colours.
    public func referenceBytes(from old: Frame, to new: Frame) -> Int {
        ReferenceUpdate.bytes(from: old, to: new, mode: screen.colorMode)
    }

    /// Every byte curses has written so far.
    public var bytesWritten: Int { Int(lseek(output, 0, SEEK_CUR)) }

    /// Ends curses; the file goes with it.
    public func close() { screen.restore() }
}
