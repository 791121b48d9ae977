import Dispatch
import Foundation
import PseudoTerminal
import ShopModels
import StorefrontUI
import TerminalNCurses

/// `run --record FILE.cast`: the shop runs in a pty of its own between this terminal and it;
/// every byte it draws reaches this terminal at once and the recording with its real time.
/// Forms are left out of the file: the shop brackets them with private markers (asked for
/// through the environment), the recording shows a line saying a form was open, and the shop
/// repaints the whole screen after one. Keys are never recorded.
///
/// Order of calls: this terminal to raw mode → spawn `storefront run` in a pty of this
/// terminal's size → relay keys in, output out (and window sizes) until the shop ends → this
/// terminal restored → the file written.
public struct LiveRecording {
    public var executable: String
    public var arguments: [String]
    public var environment: [String: String]

    public init(executable: String, arguments: [String], environment: [String: String]) {
        self.executable = executable
        self.arguments = arguments
        self.environment = environment
    }

    /// What the recording shows while a form is open.
    public static let formPlaceholder = "\u{1B}[H\u{1B}[2J\u{1B}[1;1H(A form is open: what is typed in it is not recorded.)"

    public struct Result {
        public var events: [CastRecording.Event]
        public var size: Size
        public var termination: ProcessTermination
    }

    public func run() throws -> Result {
        var rows: Int32 = 24
        var columns: Int32 = 80
        var window = winsize()
        if ioctl(STDOUT_FILENO, UInt(TIOCGWINSZ), &window) == 0, window.ws_row > 0, window.ws_col > 0 {
            rows = Int32(window.ws_row)
            columns = Int32(window.ws_col)
        }
        let process = try PseudoTerminalProcess.spawn(
            executable: executable, arguments: arguments, environment: environment,
            size: TerminalSize(columns: Int(columns), rows: Int(rows))
        )
        let terminal = process.takeTerminal()
        defer { close(terminal) }

        var saved = termios()
        let isTerminal = tcgetattr(STDIN_FILENO, &saved) == 0
        if isTerminal {
            var raw = saved
            cfmakeraw(&raw)
            tcsetattr(STDIN_FILENO, TCSANOW, &raw)
        }
        defer { if isTerminal { tcsetattr(STDIN_FILENO, TCSANOW, &saved) } }

        // This terminal's size changes become the pty's, which tells the shop.
        signal(SIGWINCH, SIG_IGN)
        let resizes = DispatchSource.makeSignalSource(signal: SIGWINCH, queue: .global())
        resizes.setEventHandler {
            var window = winsize()
            if ioctl(STDOUT_FILENO, UInt(TIOCGWINSZ), &window) == 0 {
                try? process.resize(to: TerminalSize(columns: Int(window.ws_col), rows: Int(window.ws_row)))
            }
        }
        resizes.resume()
        defer { resizes.cancel() }

        var filter = PrivateSections()
        var events: [CastRecording.Event] = []
        let clock = ContinuousClock()
        let start = clock.now
        var recordedSize = Size(columns: Int(columns), rows: Int(rows))
        func elapsedSeconds() -> Double {
            Double((clock.now - start).wholeMilliseconds) / 1000
        }
        var buffer = [UInt8](repeating: 0, count: 65_536)
        var inputOpen = true
        relay: while true {
            var descriptors = [pollfd(fd: terminal, events: Int16(POLLIN), revents: 0)]
            if inputOpen { descriptors.append(pollfd(fd: STDIN_FILENO, events: Int16(POLLIN), revents: 0)) }
            guard poll(&descriptors, nfds_t(descriptors.count), -1) >= 0 else {
                if errno == EINTR { continue } else { break }
            }
            if descriptors[0].revents != 0 {
                let count = read(terminal, &buffer, buffer.count)
                // EIO: the shop exited and the pty's other side is closed.
                guard count > 0 else { break relay }
                let output = Array(buffer.prefix(count))
                writeAll(output, to: STDOUT_FILENO)
                let kept = filter.recordable(output)
                if !kept.isEmpty {
                    // The shop redraws after a resize, so the size it drew for goes in first (asciicast v2's "r").
                    var window = winsize()
                    if ioctl(terminal, UInt(TIOCGWINSZ), &window) == 0, window.ws_col > 0, window.ws_row > 0 {
                        let size = Size(columns: Int(window.ws_col), rows: Int(window.ws_row))
                        if size != recordedSize {
                            events.append(.resize(at: elapsedSeconds(), to: size))
                            recordedSize = size
                        }
                    }
                    events.append(CastRecording.Event(time: elapsedSeconds(), output: kept))
                }
            }
            if inputOpen, descriptors.count > 1, descriptors[1].revents != 0 {
                let count = read(STDIN_FILENO, &buffer, buffer.count)
                if count > 0 { writeAll(Array(buffer.prefix(count)), to: terminal) } else { inputOpen = false }
            }
        }
        return Result(events: events, size: Size(columns: Int(columns), rows: Int(rows)), termination: process.waitForExit())
    }
}

/// Splits the shop's output at its private markers: what is outside them is recorded, what is
/// inside is replaced by one placeholder. A marker cut between two reads is held until it is whole.
public struct PrivateSections {
    private static let begins = Array(TerminalSession.privateBegins.utf8)
    private static let ends = Array(TerminalSession.privateEnds.utf8)
    private var isPrivate = false
    private var held: [UInt8] = []

    /// True while the shop has a form open: what it draws now is left out, and `q` would be typed into it.
    public var isInsideForm: Bool { isPrivate }

    public init() {}

    /// What of `output` the recording keeps.
    public mutating func recordable(_ output: [UInt8]) -> [UInt8] {
        var pending = held + output
        held = []
        var kept: [UInt8] = []
        while true {
            let marker = isPrivate ? Self.ends : Self.begins
            if let range = pending.firstRange(of: marker) {
                if !isPrivate { kept += pending[..<range.lowerBound] + Array(LiveRecording.formPlaceholder.utf8) }
                pending.removeSubrange(..<range.upperBound)
                isPrivate.toggle()
                continue
            }
            // Keep back a tail that could be the start of a marker.
            let keep = (1..<marker.count).reversed().first { pending.count >= $0 && Array(pending.suffix($0)) == Array(marker.prefix($0)) } ?? 0
            held = Array(pending.suffix(keep))
            if !isPrivate { kept += pending.dropLast(keep) }
            return kept
        }
    }
}
