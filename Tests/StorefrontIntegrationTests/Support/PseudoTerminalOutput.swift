import Foundation
import PseudoTerminal
import Testing

extension PseudoTerminalProcess {
    /// Takes the pty, reads it until the program has gone (EIO) and returns what it wrote.
    func readAllOutput() -> String {
        blockingWaitAllowed("reading a pty to its end")
        let terminal = takeTerminal()
        defer { close(terminal) }
        var text = [UInt8]()
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = read(terminal, &buffer, buffer.count)
            if count > 0 { text += buffer.prefix(count) } else if count < 0 && errno == EINTR { continue } else { break }
        }
        return String(decoding: text, as: UTF8.self)
    }
}
