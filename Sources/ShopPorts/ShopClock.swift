import Foundation
import LiveObjects
import Synchronization

/// Where the shop keeps how far its clock runs ahead of the wall clock, so that every process of the shop follows it.
public protocol ShopClockRepository: Sendable {
    /// Seconds ahead of the wall clock; 0 while it was never moved.
    func offsetSeconds() async throws -> Int64
    /// Sets how far ahead it runs (0 puts it back), noting the wall-clock time it was moved at.
    func setOffsetSeconds(_ seconds: Int64, at date: Date) async throws
}

/// The shop's time: the wall clock plus the offset the shop keeps, read when the shop opens and again at `refresh`.
///
/// A merchant trying subscriptions on a test shop moves it forward (`storefront clock advance`), as Stripe's test
/// clocks do; a live shop never has an offset.
public final class ShopClock: Sendable, LiveObject {
    /// The furthest a clock may run ahead: ten years.
    public static let maximumOffsetSeconds: Int64 = 10 * 366 * 86_400

    private let offset: Mutex<Int64>

    public init(offsetSeconds: Int64 = 0) { offset = Mutex(offsetSeconds) }

    /// Opens the shop's clock at the offset `store` keeps.
    public static func open(_ store: any ShopClockRepository) async throws -> ShopClock {
        ShopClock(offsetSeconds: try await store.offsetSeconds())
    }

    public var offsetSeconds: Int64 { offset.withLock { $0 } }

    public func now() -> Date { Date().addingTimeInterval(TimeInterval(offsetSeconds)) }

    /// The shop's time as the features read dates.
    public var dates: DateSource { DateSource { [self] in now() } }

    /// Reads the offset again, so a long-running process follows a move made by another; keeps the one it had when
    /// the store cannot be read.
    public func refresh(from store: any ShopClockRepository) async {
        guard let seconds = try? await store.offsetSeconds() else { return }
        offset.withLock { $0 = seconds }
    }
}
