import Foundation
import ShopBootstrap
import ShopModels
import ShopPorts

/// `storefront clock`: the shop's clock, which a merchant moves forward on a sandbox or test-mode shop to bring
/// renewals due, as Stripe's test clocks do (docs/subscriptions.md). A live shop runs on the wall clock.
public enum ClockCommands {
    /// How far one `advance` may move the clock, in days and in hours.
    public static let days = 0...3_660
    public static let hours = 0...87_840

    /// Prints the shop's time and how far it runs ahead of the wall clock.
    public static func show(configuration: ShopConfiguration, environment: [String: String] = ProcessInfo.processInfo.environment) async throws {
        let storage = try await ShopStorage.openForMerchant(configuration: configuration, environment: environment)
        defer { storage.close() }
        printSafely(reading(storage.clock))
    }

    /// Moves the clock `days` and `hours` further ahead; 64 for a move out of bounds, 78 on a live shop, 74 when the
    /// database fails.
    public static func advance(
        days: Int, hours: Int, configuration: ShopConfiguration, environment: [String: String] = ProcessInfo.processInfo.environment
    ) async throws {
        guard Self.days.contains(days), Self.hours.contains(hours), days + hours > 0 else {
            complain("clock advance takes --days \(Self.days) and --hours \(Self.hours), at least one above 0; got \(days) days and \(hours) hours")
            throw ExitCodes.usage
        }
        let storage = try await ShopStorage.openForMerchant(configuration: configuration, environment: environment)
        defer { storage.close() }
        try refuseLive(configuration, environment)
        let offset = storage.clock.offsetSeconds + Int64(days) * 86_400 + Int64(hours) * 3_600
        guard offset <= ShopClock.maximumOffsetSeconds else {
            let most = ShopClock.maximumOffsetSeconds / 86_400
            complain("the shop's clock may run at most \(most) days ahead; that move would make it \(offset / 86_400)")
            throw ExitCodes.usage
        }
        try await set(offset, in: storage)
        printSafely(
            "moved \(describe(Int64(days) * 86_400 + Int64(hours) * 3_600)) ahead: \(reading(storage.clock))\n"
                + "renewals due by then: `storefront subscriptions-worker --once`, or a running worker's next pass")
    }

    /// Puts the clock back on the wall clock's time; 74 when the database fails.
    public static func reset(configuration: ShopConfiguration, environment: [String: String] = ProcessInfo.processInfo.environment) async throws {
        let storage = try await ShopStorage.openForMerchant(configuration: configuration, environment: environment)
        defer { storage.close() }
        try await set(0, in: storage)
        printSafely(reading(storage.clock))
    }

    /// What `show` prints of `clock`.
    public static func reading(_ clock: ShopClock) -> String {
        let time = UTCTime(clock.now()).iso8601
        guard clock.offsetSeconds != 0 else { return "the shop's clock: \(time), the wall clock's time" }
        return "the shop's clock: \(time), \(describe(clock.offsetSeconds)) ahead of the wall clock"
    }

    /// "14 days", "1 day 6 hours", "3 hours".
    static func describe(_ seconds: Int64) -> String {
        let days = seconds / 86_400
        let hours = seconds % 86_400 / 3_600
        let parts = [(days, "day"), (hours, "hour")].filter { $0.0 > 0 }.map { "\($0.0) \($0.1)\($0.0 == 1 ? "" : "s")" }
        return parts.isEmpty ? "\(seconds) seconds" : parts.joined(separator: " ")
    }

    /// 78 when the shop takes live payments: a moved clock would renew real subscribers early.
    static func refuseLive(_ configuration: ShopConfiguration, _ environment: [String: String]) throws {
        guard configuration.payments == .stripe else { return }
        let key: (mode: PaymentMode, description: String)
        do throws(StripeSettings.Problem) {
            let read = try StripeSettings.key(configuration: configuration, environment: environment)
            key = (read.mode, read.description)
        } catch {
            complain("cannot tell whether this shop takes live payments: \(error.description)")
            throw ExitCodes.configError
        }
        guard key.mode != .live else {
            complain("this shop takes live payments (\(key.description)): its clock is the wall clock's and is not moved")
            throw ExitCodes.configError
        }
    }

    private static func set(_ offset: Int64, in storage: ShopStorage) async throws {
        do { try await storage.clockStore.setOffsetSeconds(offset, at: Date()) } catch {
            complain("cannot move the shop's clock in \(storage.place): \(error)")
            throw ExitCodes.ioError
        }
        await storage.clock.refresh(from: storage.clockStore)
    }
}
