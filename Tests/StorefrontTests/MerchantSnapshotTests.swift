import ShopModels
import ShopPorts
import SnapshotTesting
import StorageRows
import StorageSQLite
import StorefrontCore
import StorefrontTesting
import StorefrontUI
import Testing

/// Text snapshots of the merchant console's screens and the shopper's cancel and refunded order, at 80x24,
/// 120x34 and 200x60. Re-record with SNAPSHOT_TESTING_RECORD=all after a deliberate change.
@MainActor
@Suite("Merchant screens")
struct MerchantSnapshotTests {
    nonisolated static let console: [(name: String, keys: String)] = [
        ("queue", ""),
        ("queue-shipped-empty", "tab"),
        ("order", "enter"),
        ("ship-form", "enter,s"),
        ("ship-prompt", "enter,s,U,P,S,enter,1,Z,9,9,9,enter,enter"),
        ("refund-lines", "enter,r,+"),
        ("refund-form", "enter,r,+,enter"),
        ("refund-prompt", "enter,r,+,enter,enter,enter"),
        ("refunded-order", "enter,r,+,enter,enter,enter,enter"),
        ("cancel-prompt", "enter,x"),
        ("stock", "2"),
        ("stock-set", "2,enter"),
        ("sales", "3"),
        ("help", "enter,?"),
    ]

    nonisolated static let sizes = [Size(columns: 80, rows: 24), Size(columns: 120, rows: 34), Size(columns: 200, rows: 60)]

    @Test("every console screen at 80x24, 120x34 and 200x60", arguments: console.map(\.name), sizes)
    func screen(name: String, size: Size) async throws {
        let (stack, _) = try await MerchantConsoleTests.stackWithPaidOrder()
        let driver = await ScriptedDriver(stack: stack, size: size)
        try await driver.press(Self.console.first { $0.name == name }!.keys)
        assertSnapshot(of: driver.frameText, as: .lines, named: "\(name)-\(size)")
    }

    /// The catalog after a product was made with two options, and the form that edits it.
    @Test("the catalog and its product form at 80x24, 120x34 and 200x60", arguments: ["catalog", "product-form"], sizes)
    func catalog(name: String, size: Size) async throws {
        var stack = TestStack()
        stack.console = .merchant(name: "local:ops")
        stack.backOffice = stack.liveBackOffice
        let driver = await ScriptedDriver(stack: stack, size: size)
        try await driver.press("4")
        try await driver.press("n")
        for value in ["tee-pipes", "Pipes Tee", "A tee with a pipe on it.", "Heavy cotton.", "24.00", "tee", "Size: S, M; Colour: Black, White", ""] {
            await driver.type(value)
            try await driver.press("enter")
        }
        try await driver.press("end")
        if name == "product-form" { try await driver.press("enter") }
        assertSnapshot(of: driver.frameText, as: .lines, named: "\(name)-\(size)")
    }

    @Test(
        "the shopper's cancel and a refunded order at 80x24, 120x34 and 200x60", arguments: ["shopper-cancel-prompt", "shopper-refunded-order"], sizes
    )
    func shopper(name: String, size: Size) async throws {
        var (stack, order) = try await MerchantConsoleTests.stackWithPaidOrder(console: .shop)
        if name == "shopper-refunded-order" {
            _ = try await stack.backOffice.refund(
                order.number, RefundAsk(amount: order.refundAmount(for: ["hoodie-root": 1]), reason: "arrived torn"), by: .merchant("local:ops"),
                expecting: .paid)
        }
        stack.backOffice = stack.liveBackOffice
        let driver = await ScriptedDriver(stack: stack, size: size)
        try await driver.press(name == "shopper-cancel-prompt" ? "o,enter,x" : "o,enter")
        assertSnapshot(of: driver.frameText, as: .lines, named: "\(name)-\(size)")
    }
}
