import Foundation
import MerchantReports
import ShopBootstrap
import ShopModels
import ShopPorts
import TerminalNCurses

/// `storefront orders export` and `storefront reports`: a period's orders, sales, tax and refunds as CSV or JSON, for
/// a bookkeeper (docs/merchants.md). Read a page at a time, so the shop goes on taking orders while they run.
public enum ExportCommands {
    /// The longest period a report covers: ten years of days.
    public static let longestPeriodDays = 3_660

    /// The period `--from`/`--to` name (both inclusive UTC days; the last 365 days to today by default), or why not.
    public static func period(from: String?, to: String?, today: Date) -> Result<ExportPeriod, CommandProblem> {
        let todayNumber = Int((today.timeIntervalSince1970 / 86_400).rounded(.down))
        func day(_ written: String?, _ flag: String, _ fallback: Int) -> Result<Int, CommandProblem> {
            guard let written else { return .success(fallback) }
            guard let number = UTCTime.dayNumber(written) else {
                return .failure(CommandProblem("--\(flag) \(written.prefix(40)) is not a day: write it as YYYY-MM-DD, such as 2026-11-30"))
            }
            return .success(number)
        }
        let last: Int
        let first: Int
        switch day(to, "to", todayNumber) {
        case .success(let number): last = number
        case .failure(let problem): return .failure(problem)
        }
        switch day(from, "from", last - 364) {
        case .success(let number): first = number
        case .failure(let problem): return .failure(problem)
        }
        guard first <= last else { return .failure(CommandProblem("--from comes after --to: the period would hold no day")) }
        guard last - first < longestPeriodDays else {
            return .failure(CommandProblem("the period is over \(longestPeriodDays) days: export it in parts of ten years or less"))
        }
        return .success(
            ExportPeriod(
                start: Date(timeIntervalSince1970: Double(first) * 86_400), end: Date(timeIntervalSince1970: Double(last + 1) * 86_400)))
    }

    /// Writes report `kind` of the days `from` to `to` as `format` to `output`, or to standard output. A file is
    /// written whole or not at all (beside it, then renamed); its row count is said on standard error. 64 for a period
    /// that does not read, 73 for a file that cannot be made, 74 when the database or the output fails.
    public static func write(
        _ kind: PeriodReports.Kind, from: String?, to: String?, format: ExportFormat, output: String?, configuration: ShopConfiguration,
        environment: [String: String] = ProcessInfo.processInfo.environment
    ) async throws {
        let storage = try await ShopStorage.openForMerchant(configuration: configuration, environment: environment)
        defer { storage.close() }
        let period: ExportPeriod
        switch Self.period(from: from, to: to, today: storage.clock.now()) {
        case .success(let value): period = value
        case .failure(let problem):
            complain(problem.message)
            throw ExitCodes.usage
        }
        let target = try ExportTarget(path: output)
        let rows: Int
        do {
            rows = try await PeriodReports.write(kind, period: period, from: storage.orders, format: format) { text in
                guard target.write(text) else { throw ExportTarget.WriteFailed(errno: errno) }
            }
        } catch let failure as ExportTarget.WriteFailed {
            target.abandon()
            complain("cannot write \(output ?? "the report"): \(String(cString: strerror(failure.errno)))")
            throw ExitCodes.ioError
        } catch {
            target.abandon()
            complain("cannot read the orders: \(error)")
            throw ExitCodes.ioError
        }
        guard target.finish() else {
            complain("cannot write \(output ?? "the report"): \(String(cString: strerror(errno)))")
            throw ExitCodes.ioError
        }
        if let output {
            complain(
                "wrote \(output): \(rows) row\(rows == 1 ? "" : "s"), \(UTCTime(period.start).calendarDate) to "
                    + UTCTime(period.end.addingTimeInterval(-86_400)).calendarDate)
        }
    }
}

/// Where an export goes: standard output as it is written (made safe for a terminal when it is one), or a file
/// written beside its name and renamed over it once whole.
struct ExportTarget {
    struct WriteFailed: Error { var errno: Int32 }

    private let path: String?
    private let temporary: String?
    private let descriptor: Int32
    private let isTerminal: Bool

    init(path: String?) throws {
        self.path = path
        guard let path else {
            temporary = nil
            descriptor = STDOUT_FILENO
            isTerminal = isatty(STDOUT_FILENO) == 1
            return
        }
        let partial = path + ".partial-\(getpid())"
        let opened = open(partial, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o640)
        guard opened >= 0 else {
            complain("cannot write \(path): \(String(cString: strerror(errno)))")
            throw ExitCodes.cannotCreate
        }
        temporary = partial
        descriptor = opened
        isTerminal = false
    }

    func write(_ text: String) -> Bool {
        // A name with escape sequences reaches a terminal as text, never as commands; a file gets the bytes as they are.
        isTerminal ? emit(text, to: descriptor) : writeAll(text, to: descriptor)
    }

    /// Makes the file whole under its name; false (with `errno`) when it cannot.
    func finish() -> Bool {
        guard let path, let temporary else { return true }
        guard fsync(descriptor) == 0, close(descriptor) == 0 else {
            unlink(temporary)
            return false
        }
        guard rename(temporary, path) == 0 else {
            unlink(temporary)
            return false
        }
        return true
    }

    /// Leaves nothing behind of a file that was not finished.
    func abandon() {
        guard let temporary else { return }
        close(descriptor)
        unlink(temporary)
    }
}
