import Foundation
import PseudoTerminal
import Testing

extension PseudoTerminalProcess {
    /// Takes the pty, reads it until the program has gone (EIO) and returns what it wrote; what it had at `timeout`,
    /// with an issue recorded, if the program is still writing or silent then.
    func readAllOutput(timeout: Duration = .seconds(30), sourceLocation: SourceLocation = #_sourceLocation) -> String {
        let terminal = takeTerminal()
        defer { close(terminal) }
        var text = [UInt8]()
        switch read(terminal, into: &text, before: .now + timeout, sourceLocation: sourceLocation, until: { _ in false }) {
        case .timedOut:
            Issue.record(
                "the program had not ended its output after \(timeout): \(String(decoding: text, as: UTF8.self))", sourceLocation: sourceLocation)
        case .found, .closed: break
        }
        return String(decoding: text, as: UTF8.self)
    }
}
