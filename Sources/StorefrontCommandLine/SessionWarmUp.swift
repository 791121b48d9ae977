import ArgumentParser
import Foundation
import ShopBootstrap
import ShopCommands

/// What a session host does once, before it forks any session, so that each session finds it done, on pages all
/// sessions share: the Swift runtime's caches filled by what every session does first (each first dynamic cast of a
/// type to a protocol scans all 11,000 conformance records of this binary), the locale loaded, a frame laid out.
/// Nothing here may start a thread: no tasks, no dispatch queues, no database.
public enum SessionWarmUp {
    /// The shop's command line as the server gives it to every session (the host's own arguments), parsed once here:
    /// a session whose arguments are these runs this value instead of parsing them again (ArgumentParser reflects
    /// over every option of every command it passes through, a tenth of a session's start).
    // nonisolated(unsafe): written once by `run`, before the process has a second thread; only read after.
    nonisolated(unsafe) private static var prepared: (arguments: [String], command: any ParsableCommand)?

    public static func run() {
        let arguments = Array(CommandLine.arguments.dropFirst())
        if !arguments.isEmpty, let command = try? Storefront.parseAsRoot(arguments) {
            _ = command as? any AsyncParsableCommand
            prepared = (arguments, command)
        }
        // The settings every session of this host is handed, decoded once here.
        _ = try? SessionSettings.handedOver(in: ProcessInfo.processInfo.environment)
        // The merchant console's command line, and the cast `Storefront.start` makes of it.
        if let command = try? Storefront.parseAsRoot(["admin", "--data-dir", "/"]) { _ = command as? any AsyncParsableCommand }
        TerminalShop.warmUp()
    }

    /// The host's own command line, parsed before the fork: what the server runs in every session.
    static var preparedCommand: (any ParsableCommand)? { prepared?.command }

    /// The command parsed before the fork, when `arguments` are the ones it was parsed from.
    static func preparedCommand(for arguments: [String]?) -> (any ParsableCommand)? {
        guard let prepared, let arguments, arguments == prepared.arguments else { return nil }
        return prepared.command
    }
}
