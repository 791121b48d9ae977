import Foundation
import PseudoTerminal
import ShopCommands
import StorageSQLite
import StorefrontCommandLine

/// Where the program starts. Synchronous on purpose: a session host must fork before any thread exists, and an
/// asynchronous `main` starts libdispatch's threads before its first line runs.
@main
enum Entry {
    static func main() {
        // `up` answers a reload asked while it starts instead of dying of it (systemd's reload is a SIGHUP).
        if CommandLine.arguments.dropFirst().first == "up" { EarlyHangUps.queueUntilReady() }
        SQLiteDatabase.useLittleMemory()
        // In a session host this returns only in each forked session, with the arguments that session runs.
        let arguments = SessionHost.serveIfAsked(warmUp: SessionWarmUp.run)
        Task { @MainActor in
            await Storefront.start(arguments)
            exit(0)
        }
        dispatchMain()
    }
}
