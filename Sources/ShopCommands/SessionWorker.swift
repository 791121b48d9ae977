import Dispatch
import Foundation
import LiveObjects
import Logging
import PseudoTerminal
import ShopBootstrap
import ShopServices
import StoragePostgres
import SystemPackage
import TerminalNCurses

/// Where a terminal shop draws: the process's own terminal, or one session's pty in a worker that hosts many.
public enum TerminalPlace {
    case ownTerminal
    /// `typedAhead` is called once, just before the screen opens, and gives what was typed until then; `started` is
    /// handed the session once its screen is up (the start then returns), to run it, pass it window changes and ends,
    /// and call `finish` with its ending once it has ended, which closes what the start opened and gives the status.
    case worker(
        descriptor: Int32, environment: [String: String], typedAhead: @MainActor () -> [UInt8],
        started: @MainActor (DescriptorSession, _ finish: @escaping @MainActor (TerminalSession.Ending) async -> Int32) -> Void)

    /// The session's own environment, for a session in a worker; nil: the process's.
    public var environment: [String: String]? {
        if case .worker(_, let environment, _, _) = self { return environment }
        return nil
    }

    public var isOwnTerminal: Bool {
        if case .ownTerminal = self { return true }
        return false
    }
}

/// A worker process: many sessions, each on its own pty, in one process forked from the session host.
///
/// Order of calls: `serve` (never returns) → each `.start` is answered at once (or refused, for a terminal only curses
/// can draw), its session runs as a main-actor task → `ended` as each ends → once the server closes its side, every
/// session is hung up, and the worker exits after the last.
@MainActor
public enum SessionWorker {
    private final class Hosted: LiveObject {
        let descriptor: Int32
        var session: DescriptorSession?
        var finish: (@MainActor (TerminalSession.Ending) async -> Int32)?
        var endAsked: TerminalSession.Ending?
        /// The session's start, cancelled by an end asked before its screen is up (a wait for the database).
        var task: Task<Void, Never>?
        /// Until the screen is up: what is typed is kept for it, Ctrl-C leaves, and a hangup ends the start.
        var watcher: (any DispatchSourceRead)?
        var typed: [UInt8] = []
        init(descriptor: Int32) { self.descriptor = descriptor }
    }

    private static var sessions: [UInt32: Hosted] = [:]
    private static var serverGone = false
    private static var signalSources: [any DispatchSourceSignal] = []

    /// Serves the server's sessions on descriptor 3; `run` runs one session's command line on its place and returns the
    /// status a process of its own would have exited with.
    public static func serve(
        prepare: @escaping @MainActor () async -> Void, run: @escaping @MainActor (_ arguments: [String], _ place: TerminalPlace) async -> Int32
    ) async -> Never {
        // Every session's widths are the same UTF-8 ones a session process has under the C.UTF-8 its server sets.
        setlocale(LC_ALL, "C.UTF-8")
        signal(SIGPIPE, SIG_IGN)
        for (number, ending) in [(SIGTERM, TerminalSession.Ending.terminated), (SIGHUP, .hangup), (SIGINT, .interrupted)] {
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .main)
            source.setEventHandler { MainActor.assumeIsolated { endAll(ending) } }
            source.resume()
            signalSources.append(source)
        }
        let link = SessionWorkerLink(socket: 3)
        link.listen({ request in handle(request, link: link, run: run, prepare: prepare) }, serverGone: { endAll(.hangup) })
        while true { try? await Task.sleep(for: .seconds(3600)) }
    }

    private static func handle(
        _ request: SessionWorkerLink.Request, link: SessionWorkerLink, run: @escaping @MainActor ([String], TerminalPlace) async -> Int32,
        prepare: @escaping @MainActor () async -> Void
    ) {
        switch request {
        case .start(let number, let descriptor, let arguments, let environment):
            guard !serverGone else {
                close(descriptor)
                return link.started(number, error: EPIPE)
            }
            guard DescriptorSession.drawsByBytes(environment: environment) else {
                close(descriptor)
                return link.started(number, error: SessionWorkerLink.needsOwnProcess)
            }
            let hosted = Hosted(descriptor: descriptor)
            sessions[number] = hosted
            link.started(number)
            watchBeforeTheScreen(number, hosted)
            let place = TerminalPlace.worker(
                descriptor: descriptor, environment: environment,
                typedAhead: {
                    hosted.watcher?.cancel()
                    hosted.watcher = nil
                    return hosted.typed
                },
                started: { session, finish in
                    hosted.session = session
                    hosted.finish = finish
                    if let ending = hosted.endAsked { session.end(ending) }
                })
            hosted.task = Task { @MainActor in
                let status = await SessionOutput.$terminal.withValue(descriptor) { await run(arguments, place) }
                // Held, this task would keep the memory of its start's frames for the session's length.
                hosted.task = nil
                hosted.watcher?.cancel()
                guard let session = hosted.session, let finish = hosted.finish else {
                    // Ended before its screen was up: as a process of its own would have been, by the signal.
                    return ended(number, hosted, link: link, status: hosted.endAsked?.rawValue ?? status)
                }
                // A task of its own, whose frames are the session loop's alone.
                Task { @MainActor in
                    let ending: TerminalSession.Ending
                    do {
                        ending = try await session.run()
                    } catch {
                        emit("storefront: \(error)\n", to: hosted.descriptor)
                        return ended(number, hosted, link: link, status: 69)
                    }
                    ended(number, hosted, link: link, status: await finish(ending))
                }
            }
        case .windowChanged(let number):
            sessions[number]?.session?.windowChanged()
        case .signal(let number, let signal):
            let ending: TerminalSession.Ending =
                switch signal {
                case SIGHUP: .hangup
                case SIGINT, SIGQUIT: .interrupted
                default: .terminated
                }
            end(number, ending)
        case .prepare:
            Task { await prepare() }
        }
    }

    private static func ended(_ number: UInt32, _ hosted: Hosted, link: SessionWorkerLink, status: Int32) {
        sessions[number] = nil
        close(hosted.descriptor)
        link.ended(number, exitCode: status)
        if serverGone, sessions.isEmpty { exit(0) }
    }

    private static func end(_ number: UInt32, _ ending: TerminalSession.Ending) {
        guard let hosted = sessions[number] else { return }
        if hosted.endAsked == nil { hosted.endAsked = ending }
        if let session = hosted.session { return session.end(ending) }
        hosted.task?.cancel()
    }

    /// Reads the session's terminal until its screen is up, as its line discipline would serve a process of its own:
    /// Ctrl-C ends the start, a hangup too, and other keys wait for the screen.
    private static func watchBeforeTheScreen(_ number: UInt32, _ hosted: Hosted) {
        let descriptor = hosted.descriptor
        _ = fcntl(descriptor, F_SETFL, fcntl(descriptor, F_GETFL) | O_NONBLOCK)
        let source = DispatchSource.makeReadSource(fileDescriptor: descriptor, queue: .main)
        source.setEventHandler {
            MainActor.assumeIsolated {
                var buffer = [UInt8](repeating: 0, count: 1024)
                let count = read(descriptor, &buffer, buffer.count)
                if count > 0 {
                    if buffer.prefix(count).contains(3) { return end(number, .interrupted) }
                    hosted.typed += buffer.prefix(count)
                } else if count == 0 || (errno != EAGAIN && errno != EINTR) {
                    end(number, .hangup)
                    hosted.watcher?.cancel()
                    hosted.watcher = nil
                }
            }
        }
        source.resume()
        hosted.watcher = source
    }

    /// The server is gone, or the worker was signalled: every session ends; the worker exits after the last.
    private static func endAll(_ ending: TerminalSession.Ending) {
        serverGone = true
        if sessions.isEmpty { exit(0) }
        for number in sessions.keys { end(number, ending) }
    }
}

/// The storage every session of a worker shares (one pool, one catalog, one set of statement caches), where a session
/// process opens its own: opened by the worker while it is a quiet server's spare (`prepare`), or else by the first session.
@MainActor
enum WorkerStorage {
    private static var opened: [String: ShopStorage] = [:]
    /// Opens under way, so a session that arrives meanwhile waits for one instead of opening its own.
    private static var opening: [String: Task<ShopStorage, any Error>] = [:]

    /// The shop's storage for `configuration`; `shared`: kept for every later session of this worker with the same
    /// place and catalog. A session that finds the shared database unreachable is told and waits for it, as one that
    /// opens its own does.
    static func open(
        shared: Bool, configuration: ShopConfiguration, environment: [String: String], migrate: Bool, waitsForDatabase: Bool
    ) async throws -> ShopStorage {
        let dataDirectory = configuration.dataDirectory(environment: environment)
        let open = { (pool: PostgresDatabase.Pool) in
            try await ShopStorage.open(
                configuration: configuration, dataDirectory: dataDirectory, pool: pool, migrate: migrate, environment: environment,
                waitsForDatabase: waitsForDatabase)
        }
        guard shared else { return try await open(.session) }
        let key = "\(configuration.storagePlace(dataDirectory: dataDirectory)) \(configuration.catalog?.string ?? "bundled")"
        // An open under way that fails (the worker's own, which does not wait for a database) leaves this one to try.
        if opened[key] == nil, let pending = opening[key] { _ = try? await pending.value }
        if let found = opened[key] {
            if let database = found.postgres { try await waitUntilReachable(database) }
            return found
        }
        let task = Task {
            var storage = try await open(.worker)
            // The worker's sessions share the copies of the products they show (the issue's "caches of immutable data").
            storage.catalog = SharedCatalogReads(storage.catalog)
            return storage
        }
        opening[key] = task
        defer { if opening[key] == task { opening[key] = nil } }
        let storage = try await task.value
        if let found = opened[key] { return found }
        opened[key] = storage
        return storage
    }

    /// Returns once `database` answers, trying every 2 s; told once, as `StorageOpening` tells a session opening its own.
    private static func waitUntilReachable(_ database: PostgresDatabase) async throws {
        var told = false
        while true {
            do {
                try await database.ping()
                if told { complain("the shop's database answers again; opening the shop") }
                return
            } catch {
                if !told { complain("The database is not reachable; retrying every 2 s (Ctrl-C leaves): \(error)") }
                told = true
                try await Task.sleep(for: .seconds(2))
            }
        }
    }
}

/// The log file every session of a worker appends to, opened once per file and level.
@MainActor
enum WorkerLogs {
    private static var open: [String: (Logger, FileLogHandler.Sink)] = [:]

    static func log(in directory: FilePath, level: Logger.Level) throws -> (Logger, FileLogHandler.Sink) {
        let key = "\(level.rawValue) \(directory.string)"
        if let found = open[key] { return found }
        let opened = try TerminalShop.openLog(in: directory, level: level)
        open[key] = opened
        return opened
    }
}

/// Faults a test injects into sessions in workers; each is off unless its variable is set in the server's environment.
enum WorkerFaults {
    /// A key that makes the session trap, ending its worker: what the crash-containment test presses.
    static let crashKeyVariable = "STOREFRONT_FAULT_CRASH_KEY"

    static func crashKey(_ environment: [String: String]) -> Character? {
        guard let value = environment[crashKeyVariable], value.count == 1 else { return nil }
        return value.first
    }
}
