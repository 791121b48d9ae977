import CNCurses
import Foundation

/// Keys read from a terminal's descriptor without curses and decoded by `KeyBytes`: a worker's sessions, and the local
/// terminal whose entry speaks ANSI. One read takes every byte waiting, where curses reads a byte a system call.
///
/// Order of calls: `init` with the keys typed before the screen opened → `read` when the descriptor is readable →
/// `flush` after the escape delay while `isWaiting`.
@MainActor
struct KeyReader {
    private var keys = KeyBytes()
    /// Keys typed before the screen opened: the first `read` decodes them before what it reads.
    private var typedAhead: [UInt8]
    /// Clicks and the wheel are on; off, a mouse report (which the terminal was not asked for) is read and dropped.
    private let mouse: Bool

    init(typedAhead: [UInt8], mouse: Bool) {
        self.typedAhead = typedAhead
        self.mouse = mouse
    }

    /// True when bytes of an escape sequence cut by a read wait for the rest.
    var isWaiting: Bool { keys.isWaiting }

    /// The inputs waiting on `descriptor`, and whether its other side closed. A descriptor in blocking mode (a local
    /// terminal, whose open file the shell shares, so it is never made non-blocking) is read only as far as it holds.
    mutating func read(_ descriptor: Int32, blocking: Bool) -> (inputs: [NCursesScreen.Input], isGone: Bool) {
        var decoded: [(isKeyCode: Bool, value: UInt32)] = []
        if !typedAhead.isEmpty {
            decoded = keys.decode(typedAhead)
            typedAhead = []
        }
        var isGone = false
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 4096) { buffer in
            while true {
                var wanted = buffer.count
                if blocking {
                    var available: Int32 = 0
                    // Nothing waiting (or a terminal that hung up): the caller's empty read says which.
                    guard ioctl(descriptor, UInt(FIONREAD), &available) == 0, available > 0 else { break }
                    wanted = min(Int(available), buffer.count)
                }
                let count = Foundation.read(descriptor, buffer.baseAddress, wanted)
                if count > 0 {
                    decoded += keys.decode(buffer.prefix(count))
                    if count < buffer.count { break }
                    continue
                }
                if count < 0, errno == EINTR { continue }
                // 0 or EIO: the terminal's other side closed.
                if count == 0 || errno != EAGAIN { isGone = true }
                break
            }
        }
        return (inputs(decoded), isGone)
    }

    /// What is pending, read as typed: the escape delay passed with nothing more of its sequence.
    mutating func flush() -> [NCursesScreen.Input] {
        inputs(keys.flush())
    }

    private func inputs(_ decoded: [(isKeyCode: Bool, value: UInt32)]) -> [NCursesScreen.Input] {
        let inputs = NCursesScreen.inputs(from: decoded)
        guard !mouse else { return inputs }
        return inputs.filter {
            switch $0 {
            case .click, .wheel: false
            default: true
            }
        }
    }
}
