import Foundation
import Logging
import ShopModels
import StorefrontUI
import TerminalNCurses

/// Where a session's complaints go: its own terminal, for a session in a worker (whose stderr is its server's); nil:
/// the process's stderr.
public enum SessionOutput {
    @TaskLocal public static var terminal: Int32?
}

/// Prints `message` to stderr prefixed with the command name; a JSON line at level error when the log is JSON. In a
/// worker's session, to that session's terminal, as a session process's stderr is.
public func complain(_ message: String) {
    if let terminal = SessionOutput.terminal {
        emit("storefront: \(message)\n", to: terminal)
        return
    }
    guard ServerLog.shared.currentFormat == .json else {
        emit("storefront: \(message)\n", to: STDERR_FILENO)
        return
    }
    emit(LogLine(time: Date(), level: .error, message: message).json, to: STDERR_FILENO)
}

/// Prints a command's output to stdout as `print` would, made safe for a terminal first: what shoppers typed (an
/// address, a name) may hold escape sequences that must never reach the merchant's terminal raw.
public func printSafely(_ text: String) {
    emit(text + "\n", to: STDOUT_FILENO)
}

/// One line of a server's log on stdout, timestamped, as text or JSON (`ServerLog`); never waits for the reader.
@Sendable public func announce(_ message: String) {
    ServerLog.shared.write(message)
}

/// The same at `level`: a warning or an error a log pipeline can pick out.
public func announce(_ message: String, level: Logger.Level) {
    ServerLog.shared.write(message, level: level)
}

/// Writes a command's result on stdout; one that cannot be written (a closed pipe, a full disk) is told and exits 74.
public func writeResult(_ text: String, what: String) throws {
    guard emit(text + "\n", to: STDOUT_FILENO) else {
        complain("cannot write \(what): \(String(cString: strerror(errno)))")
        throw ExitCodes.ioError
    }
}

/// Writes `text` to `descriptor` with write(2), made safe for a terminal first (`TerminalText.safeLines`).
///
/// A write that fails (a full disk, a closed pipe) never traps, unlike FileHandle.write: it returns false, with `errno`
/// saying why, for a command whose output is its result to tell.
@discardableResult
public func emit(_ text: String, to descriptor: Int32) -> Bool {
    writeAll(TerminalText.safeLines(text), to: descriptor)
}

/// This very binary, so a process it starts (an SSH session, a recorded shop) runs the same build.
public func thisExecutable() -> String {
    (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
}

/// Whether an account of this process's user id has `executable` as its login shell (the OpenSSH front's guest).
public func isAccountShell(_ executable: String) -> Bool {
    let uid = getuid()
    setpwent()
    defer { endpwent() }
    while let entry = getpwent() {
        if entry.pointee.pw_uid == uid, String(cString: entry.pointee.pw_shell) == executable { return true }
    }
    return false
}
