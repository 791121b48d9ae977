import Foundation
import ShopModels
import ShopPorts

/// Hands messages to a sendmail-compatible command (`sendmail -t -i` by default; Postfix, exim and msmtp all
/// provide one): the message on its standard input, the recipients read from its headers.
public struct SendmailTransport: MailTransport {
    /// The program and its arguments, as `--mail-command` gives them, split on spaces.
    public let command: [String]

    public init(command: [String]) {
        self.command = command
    }

    /// `text` split on runs of spaces: `sendmail -t -i` → ["sendmail", "-t", "-i"].
    public static func parse(_ text: String) -> [String] {
        text.split(separator: " ").map(String.init)
    }

    public func send(_ message: MailMessage) async throws(MailTransportError) {
        guard let program = command.first else { throw MailTransportError("no mail command is set") }
        let process = Process()
        process.executableURL = Self.resolve(program)
        process.arguments = Array(command.dropFirst())
        let input = Pipe()
        let errors = Pipe()
        process.standardInput = input
        process.standardOutput = FileHandle.nullDevice
        process.standardError = errors
        do {
            try process.run()
        } catch {
            throw MailTransportError("cannot start the mail command \(program): \(error.localizedDescription)")
        }
        do {
            try input.fileHandleForWriting.write(contentsOf: Data(message.rfc5322.utf8))
            try input.fileHandleForWriting.close()
        } catch {
            process.terminate()
        }
        let said = (try? errors.fileHandleForReading.readToEnd()).flatMap { String(data: $0, encoding: .utf8) } ?? ""
        process.waitUntilExit()
        guard process.terminationReason == .exit, process.terminationStatus == 0 else {
            let reason = said.split(separator: "\n").last.map(String.init) ?? "no message"
            throw MailTransportError("the mail command \(program) exited with \(process.terminationStatus): \(MailMessage.oneLine(reason))")
        }
    }

    /// `program` as a path: as given when it holds a slash, else looked up on PATH (and /usr/sbin, where sendmail lives).
    static func resolve(_ program: String) -> URL {
        if program.contains("/") { return URL(fileURLWithPath: program) }
        let path = (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin") + ":/usr/sbin:/sbin"
        for directory in path.split(separator: ":") {
            let candidate = URL(fileURLWithPath: String(directory)).appendingPathComponent(program)
            if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
        }
        return URL(fileURLWithPath: "/usr/sbin/\(program)")
    }
}
