import ShopBootstrap
import ShopRecording
import StoragePostgres

/// How a command ends when it does not succeed: its exit status, its reason already told on stderr.
public struct CommandExit: Error, Equatable, Sendable {
    public let status: Int32
    public init(_ status: Int32) { self.status = status }
}

/// Exit statuses, as docs/exit-codes.md lists them (sysexits.h values where one fits).
public enum ExitCodes {
    public static let usage = CommandExit(64)
    public static let dataError = CommandExit(65)
    public static let noInput = CommandExit(66)
    public static let noTerminal = CommandExit(69)
    /// EX_UNAVAILABLE as `serve` uses it: the address cannot be listened on.
    public static let cannotListen = CommandExit(69)
    /// EX_UNAVAILABLE for a PostgreSQL server that does not answer.
    public static let databaseUnreachable = CommandExit(69)
    /// EX_SOFTWARE: what was read could not be written as JSON.
    public static let cannotSerialize = CommandExit(70)
    /// EX_OSERR: the system would not start a process (`serve` and `web` starting their session host).
    public static let systemError = CommandExit(71)
    public static let cannotCreate = CommandExit(73)
    public static let ioError = CommandExit(74)
    /// EX_TEMPFAIL: trying again later may work (a database locked by another process, an order changed meanwhile,
    /// a refund or a message the other side did not answer yet).
    public static let temporaryFailure = CommandExit(75)
    public static let configError = CommandExit(78)
    /// The visitor may not come in (EX_NOPERM): an SSH key taken off its account.
    public static let permissionDenied = CommandExit(77)
}

extension ServiceStartFailure {
    /// Tells the failure on stderr; returns the exit to end with.
    public func told() -> CommandExit {
        complain(description)
        switch kind {
        case .configuration: return ExitCodes.configError
        case .cannotListen: return ExitCodes.cannotListen
        case .cannotCreate: return ExitCodes.cannotCreate
        case .system: return ExitCodes.systemError
        case .usage: return ExitCodes.usage
        case .io: return ExitCodes.ioError
        case .refused: return ExitCodes.permissionDenied
        }
    }
}

extension StorageOpenFailure {
    /// The exit each kind of failure ends a command with.
    public var exit: CommandExit {
        switch kind {
        case .usage: ExitCodes.usage
        case .configuration: ExitCodes.configError
        case .unreachable: ExitCodes.databaseUnreachable
        case .noInput: ExitCodes.noInput
        case .invalidCatalog: ExitCodes.dataError
        case .cannotCreate: ExitCodes.cannotCreate
        case .busy: ExitCodes.temporaryFailure
        case .io: ExitCodes.ioError
        }
    }
}

/// Runs `open`; a storage that cannot be opened is told on stderr and ends the command with its exit.
public func openingStorage<T>(_ open: () async throws -> T) async throws -> T {
    do {
        return try await open()
    } catch let failure as StorageOpenFailure {
        complain(failure.description)
        throw failure.exit
    }
}

/// Runs `make`; payment settings that cannot be used are told on stderr and end the command with 78.
public func configuringPayments<T>(_ make: () throws(StripeSettings.Problem) -> T) throws -> T {
    do {
        return try make()
    } catch {
        complain(error.description)
        throw ExitCodes.configError
    }
}

/// Runs `write`; a recording's file that cannot be written is told on stderr and ends the command with 73.
public func writingRecording<T>(_ write: () throws(RecordingFileError) -> T) throws -> T {
    do {
        return try write()
    } catch {
        complain(error.description)
        throw ExitCodes.cannotCreate
    }
}

/// What is wrong with a command's options or a file it reads, in one line.
public struct CommandProblem: Error, Sendable {
    public var message: String
    public init(_ message: String) { self.message = message }
}
