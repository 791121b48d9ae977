import Foundation
import ShopModels
import ShopPorts
import StorageRows
import StorageSQLite
import StorefrontCore
import StorefrontTesting
import Testing

/// One rule for whose email gets the receipt, on every front: the order's contact's. The sheet says it ("Receipt to
/// …"), and an address typed for Ship to on the sheet, whose form asks for the email that gets the receipt, is the
/// contact too, as the API sends it to the address's email.
@MainActor
@Suite("The receipt goes where the sheet says")
struct ReceiptAddressTests {
    @Test func anAddressTypedForShipToIsTheContactAndItsEmailGetsTheReceipt() async throws {
        let driver = await ScriptedDriver()
        try await driver.press("enter,a,c,enter")
        #expect(driver.state.paymentSheet?.rowValues[.contact] == "Receipt to jane@example.com · +1 555 0100")

        // Ship to, its chooser, "Add a new address".
        try await driver.press("down,enter")
        let count = try #require(driver.state.paymentSheet?.chooser?.options.count)
        for _ in 0..<count { try await driver.press("down") }
        #expect(driver.state.paymentSheet?.chooser?.isOnAddRow == true)
        try await driver.press("enter")
        #expect(driver.state.form?.purpose == .addAddress, "\(driver.frameText)")
        for value in ["Max Muster", "1 Loop Road", "", "Cupertino", "CA", "95014", "max@example.de", ""] {
            if !value.isEmpty { await driver.send(.textInput(value)) }
            await driver.send(.confirm)
        }
        #expect(driver.state.paymentSheet?.rowValues[.contact] == "Receipt to max@example.de", "\(driver.frameText)")

        try await driver.press("p,enter")
        let number = try #require(driver.state.confirmation?.orderNumber, "\(driver.frameText)")
        let mail = try await SQLOutbox(database: driver.stack.database).entries(orderNumber: number)
        #expect(!mail.isEmpty && mail.allSatisfy { $0.recipient.address == "max@example.de" }, "\(mail.map(\.recipient))")
    }
}
