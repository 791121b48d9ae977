import StorefrontCore
import StorefrontTesting
import Testing

/// The payment sheet's choosers and rows take every list key the keys table names: Home, End, PgUp and PgDn too.
@MainActor
@Suite("Chooser keys")
struct ChooserKeysTests {
    @Test func homeEndAndThePageKeysMoveAChooserAndTheSheetsRows() async throws {
        let driver = await ScriptedDriver()
        try await driver.press("enter,a,c,enter")
        try await driver.press("enter")
        let count = try #require(driver.state.paymentSheet?.chooser?.rowCount)
        try await driver.press("end")
        #expect(driver.state.paymentSheet?.chooser?.selectedIndex == count - 1 && driver.state.paymentSheet?.chooser?.isOnAddRow == true)
        try await driver.press("home")
        #expect(driver.state.paymentSheet?.chooser?.selectedIndex == 0)
        try await driver.press("pgdn")
        #expect(driver.state.paymentSheet?.chooser?.selectedIndex == count - 1)
        try await driver.press("pgup")
        #expect(driver.state.paymentSheet?.chooser?.selectedIndex == 0)
        try await driver.press("esc,end")
        #expect(driver.state.paymentSheet?.selectedRow == driver.state.paymentSheet?.rows.last, "End on the sheet: its last row")
        try await driver.press("home")
        #expect(driver.state.paymentSheet?.selectedRow == driver.state.paymentSheet?.rows.first)
    }
}
