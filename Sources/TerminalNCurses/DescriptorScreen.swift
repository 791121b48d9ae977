import CNCurses
import Foundation
import LiveObjects
import StorefrontUI

/// A session's screen in a worker process that hosts many: the pty's terminal side as a descriptor, its own modes and
/// frame encoder, keys decoded without curses (whose screen is one per process). Writes never block the worker: what
/// the terminal does not take now waits, and a terminal that takes nothing for long gets one repaint once it does.
///
/// Order of calls: `init` (checks the terminal type, enters raw mode and the shop's screen) → `draw` per burst →
/// `readKeys` when readable (`flushKeys` after the escape delay while `waitsForEscape`) → `adoptTerminalSize` when the
/// server says the window changed → `restore` once (safe twice).
@MainActor
final class DescriptorScreen: SessionScreen {
    private(set) var size: Size
    let charset: Charset
    let colorMode: ColorMode
    /// Every frame is written by the shop's encoder.
    var writesDirectly: Bool { true }
    var cellPixels: CellPixels { CellPixels.measured(on: descriptor) ?? .usual }
    let descriptor: Int32
    private var encoder: FrameEncoder
    private var previous: Frame?
    private var keys: KeyReader
    private let type: TerminalType
    private let mouse: Bool
    private var saved: termios
    private(set) var isActive = true
    private(set) var isGone = false
    /// Bytes the terminal has not taken yet, and the source that writes them once it can.
    private var unsent: [UInt8] = []
    private var writable: (any DispatchSourceWrite)?
    /// Past this much unsent output the frames in it are dropped, and the screen is repainted once the terminal reads.
    static let unsentLimit = 256 * 1024

    /// Checks `TERM` and the descriptor; throws without writing anything when the shop cannot draw there by its own
    /// bytes (`TerminalError.startFailed` for a type only curses can draw: its server gives it a process of its own).
    init(descriptor: Int32, environment: [String: String], theme: ThemePreference, background: Background, mouse: Bool, typeahead: [UInt8] = [])
        throws
    {
        guard isatty(descriptor) == 1 else { throw TerminalError.notATerminal }
        let type: TerminalType
        switch TerminalTypes.type(environment["TERM"] ?? "") {
        case .success(let found): type = found
        case .failure(let error): throw error
        }
        let mode = Theme.mode(preference: theme, environment: environment, hasColors: type.colors > 0, colors: type.colors, background: background)
        guard let dialect = type.dialects[mode] else {
            throw TerminalError.startFailed("terminal type \(environment["TERM"] ?? "") is drawn by curses only")
        }
        var modes = termios()
        guard tcgetattr(descriptor, &modes) == 0 else { throw TerminalError.notATerminal }
        self.descriptor = descriptor
        self.type = type
        self.mouse = mouse
        saved = modes
        colorMode = mode
        charset = Self.locale(environment).uppercased().replacing("-", with: "").contains("UTF8") ? .unicode : .ascii
        encoder = FrameEncoder(
            dialect: dialect, marksFrames: FrameEncoder.marksFrames(in: environment), width: { Int(sf_wcwidth(wchar_t(bitPattern: $0))) })
        size = Size(columns: 80, rows: 24)
        // Raw, as curses' raw(), noecho() and nonl() leave it: Ctrl-C and Ctrl-Z arrive as keys, nothing is echoed.
        var raw = modes
        cfmakeraw(&raw)
        _ = tcsetattr(descriptor, TCSANOW, &raw)
        _ = fcntl(descriptor, F_SETFL, fcntl(descriptor, F_GETFL) | O_NONBLOCK)
        keys = KeyReader(typedAhead: typeahead, mouse: mouse)
        size = measuredSize() ?? size
        var entering = type.enter
        if mouse { entering += type.mouseOn }
        send(Array(entering.utf8))
    }

    private static func locale(_ environment: [String: String]) -> String {
        for name in ["LC_ALL", "LC_CTYPE", "LANG"] {
            if let value = environment[name], !value.isEmpty { return value }
        }
        return "C"
    }

    private func measuredSize() -> Size? {
        var rows: Int32 = 0
        var columns: Int32 = 0
        guard sf_window_size(descriptor, &rows, &columns) == 0, rows > 0, columns > 0 else { return nil }
        return Size(columns: Int(columns), rows: Int(rows)).bounded
    }

    func draw(_ frame: Frame) {
        guard isActive else { return }
        FrameEncoder.encode(&encoder, from: &previous, to: frame)
        previous = frame
        send(encoder.output)
    }

    func readKeys() -> [NCursesScreen.Input] {
        guard isActive else { return [] }
        let (inputs, closed) = keys.read(descriptor, blocking: false)
        if closed { isGone = true }
        return inputs
    }

    var waitsForEscape: Bool { keys.isWaiting }

    func flushKeys() -> [NCursesScreen.Input] {
        keys.flush()
    }

    func adoptTerminalSize() -> Size {
        if let measured = measuredSize() { size = measured }
        invalidate()
        return size
    }

    func invalidate() {
        previous = nil
    }

    func write(_ text: String) {
        send(Array(text.utf8))
    }

    /// Leaves the shop's screen and puts the terminal's modes back; what the terminal will not take at once is dropped.
    func restore() {
        guard isActive else { return }
        isActive = false
        var leaving = "\u{1B}[m"
        if mouse { leaving += type.mouseOff }
        leaving += type.leave
        unsent += encoder.releasingPictures + Array(leaving.utf8)
        flush()
        writable?.cancel()
        writable = nil
        // TCSANOW: waiting for the output to drain (TCSADRAIN) would hold every session of the worker.
        _ = tcsetattr(descriptor, TCSANOW, &saved)
    }

    private func send(_ bytes: [UInt8]) {
        guard unsent.isEmpty else {
            unsent += bytes
            return flush()
        }
        // Most frames go whole, straight from the encoder's buffer: only what the terminal does not take now is kept.
        guard let written = bytes.withUnsafeBytes({ writeNow($0) }) else { return gone() }
        if written < bytes.count { unsent = Array(bytes[written...]) }
        flush()
    }

    /// Writes what the terminal takes of `bytes` now: how many it took; nil when the terminal is gone.
    private func writeNow(_ bytes: UnsafeRawBufferPointer) -> Int? {
        var offset = 0
        while offset < bytes.count, let start = bytes.baseAddress {
            let written = Glibc.write(descriptor, start + offset, bytes.count - offset)
            if written > 0 {
                offset += written
                continue
            }
            if written < 0, errno == EINTR { continue }
            if written < 0, errno == EAGAIN { break }
            return nil
        }
        return offset
    }

    private func gone() {
        isGone = true
        unsent = []
    }

    /// Writes what the terminal takes now; the rest waits for it to be writable.
    private func flush() {
        if !unsent.isEmpty {
            guard let written = unsent.withUnsafeBytes({ writeNow($0) }) else { return gone() }
            // Emptied, the buffer is let go: an idle session holds none of the frame it once could not send at once.
            if written == unsent.count { unsent = [] } else { unsent.removeFirst(written) }
        }
        if unsent.count > Self.unsentLimit {
            // A terminal that reads nothing must not make the worker hold its every frame: repaint once it reads.
            unsent = []
            previous = nil
        }
        if unsent.isEmpty {
            writable?.cancel()
            writable = nil
        } else if writable == nil, isActive {
            let source = DispatchSource.makeWriteSource(fileDescriptor: descriptor, queue: .main)
            source.setEventHandler { [weak self] in MainActor.assumeIsolated { self?.flush() } }
            source.resume()
            writable = source
        }
    }
}

extension DescriptorScreen: LiveObject {}
