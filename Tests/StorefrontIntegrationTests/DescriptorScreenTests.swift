import CPseudoTerminal
import Foundation
import LiveObjects
import Testing

@testable import TerminalNCurses

/// A worker's session writes its frames without ever blocking the worker: what the terminal does not take at once waits
/// and follows in order once it reads.
@Suite("A session's screen in a worker", .ownThreads)
struct DescriptorScreenTests {
    /// A pty whose terminal side the screen draws on; the test reads the other side, the server's.
    final class Pty: LiveObject {
        let server: Int32
        let terminal: Int32
        init() throws {
            var name = [CChar](repeating: 0, count: 128)
            server = sf_open_pseudo_terminal(&name, name.count)
            guard server >= 0 else { throw POSIXError(.EIO) }
            terminal = name.withUnsafeBufferPointer { open($0.baseAddress!, O_RDWR | O_NOCTTY) }
            guard terminal >= 0 else { throw POSIXError(.EIO) }
            _ = fcntl(server, F_SETFL, fcntl(server, F_GETFL) | O_NONBLOCK)
        }
        deinit {
            close(server)
            close(terminal)
        }

        /// What the screen wrote that has arrived.
        func read() -> [UInt8] {
            var all: [UInt8] = []
            var buffer = [UInt8](repeating: 0, count: 65536)
            while true {
                let count = Glibc.read(server, &buffer, buffer.count)
                guard count > 0 else { return all }
                all += buffer.prefix(count)
            }
        }
    }

    @MainActor
    @Test("output larger than the terminal takes at once arrives whole and in order once the terminal reads")
    func outputTheTerminalCannotTakeAtOnceFollowsInOrder() throws {
        let pty = try Pty()
        let screen = try DescriptorScreen(
            descriptor: pty.terminal, environment: ["TERM": "xterm-256color", "LANG": "C.UTF-8"], theme: .dark, background: .dark, mouse: false)
        // Far more than a pty's buffer holds, less than what a screen holds back before dropping frames.
        let lines = (0..<4000).map { "line \($0) of a long answer\r\n" }
        for line in lines { screen.write(line) }
        let expected = Array(lines.joined().utf8)
        var received = pty.read()
        #expect(received.count < expected.count, "the terminal took only part at once: the rest waits in the screen")
        // Each read makes room; what waits is sent on the next write (as the screen's writable source would, here
        // without waiting on the main queue other tests share).
        var arrived = false
        for _ in 0..<100_000 where !arrived {
            screen.write("")
            let more = pty.read()
            received += more
            if !more.isEmpty, received.count >= expected.count { arrived = received.suffix(expected.count).elementsEqual(expected) }
        }
        #expect(received.count > expected.count, "the screen's entering sequence, then every line")
        #expect(received.suffix(expected.count).elementsEqual(expected), "every line arrived, in order, once")
        #expect(!screen.isGone)
    }
}
