import ArgumentParser
import Foundation
import ShopCommands

/// `storefront session-worker`: what a session host's worker fork runs (never typed): it hosts many sessions of its
/// server, each a `run` or `admin` command line on its own pty.
struct SessionWorkerCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "session-worker", shouldDisplay: false)

    @MainActor
    func run() async throws {
        guard ProcessInfo.processInfo.environment["STOREFRONT_SESSION_WORKER"] == "3" else {
            complain("session-worker is started by a server's session host, not by hand")
            throw ExitCodes.usage
        }
        await SessionWorker.serve(prepare: { await (SessionWarmUp.preparedCommand as? Run)?.prepareWorker() }, run: Self.session)
    }

    /// Runs one session's command line on `place`; the status a process of its own would have exited with. What the
    /// process would have printed on its terminal as it ended is written on the session's.
    @MainActor
    static func session(_ arguments: [String], _ place: TerminalPlace) async -> Int32 {
        do {
            let command = try SessionWarmUp.preparedCommand(for: arguments) ?? Storefront.parseAsRoot(arguments)
            switch command {
            case let shop as Run: try await shop.open(console: .shop, place: place)
            case let console as Admin: try await console.open(place: place)
            default: throw ValidationError("a session runs `run` or `admin`, not \(arguments.first ?? "nothing")")
            }
            return 0
        } catch let exit as CommandExit {
            return exit.status
        } catch {
            let code = Storefront.exitCode(for: error)
            let message = Storefront.fullMessage(for: error)
            if !message.isEmpty, !(error is CancellationError), case .worker(let terminal, _, _, _) = place { emit(message + "\n", to: terminal) }
            return code.rawValue == 0 ? 1 : code.rawValue
        }
    }
}
