import Foundation
import ShopModels
import ShopPictures
import ShopPorts
import StorageRows
import StorageSQLite
import StorefrontCore
import StorefrontTesting
import Testing

/// The console's catalog (`storefront admin`, key 4) on the shop's own database, beside an open shop on it: a product
/// made with two options reaches the shop at its next screen, every change names who made it, and an edit over a version
/// someone else saved meanwhile is refused with the form kept.
@MainActor
@Suite("The console's catalog")
struct CatalogConsoleTests {
    let shopStack = TestStack()

    /// A console on the shop's database, as `storefront admin` runs beside a shop, recorded as made by `name`.
    func console(_ name: String) async -> ScriptedDriver {
        var stack = shopStack
        stack.console = .merchant(name: name)
        stack.backOffice = stack.liveBackOffice
        return await ScriptedDriver(stack: stack)
    }

    /// Types each value into the form's fields in turn, Enter after each (the last Enter submits).
    func fill(_ driver: ScriptedDriver, _ values: [String]) async throws {
        for value in values {
            if !value.isEmpty { await driver.type(value) }
            try await driver.press("enter")
        }
    }

    @Test func aProductWithTwoOptionsMadeInTheConsoleShowsInAnOpenShopAtItsNextScreen() async throws {
        let shop = await ScriptedDriver(stack: shopStack)
        let before = shop.state.productList.totalCount
        let admin = await console("local:ada")
        try await admin.press("4")
        #expect(admin.state.screen == .merchantCatalog)
        #expect(admin.state.merchant?.catalog.products.count == before)
        try await admin.press("n")
        try await fill(
            admin,
            ["tee-pipes", "Pipes Tee", "A tee with a pipe on it.", "Heavy cotton.", "24.00", "tee, cotton", "Size: S, M; Colour: Black, White", ""])
        #expect(admin.state.screen == .merchantCatalog, "\(admin.state.form?.fields.compactMap(\.error) ?? [])")
        #expect(admin.state.notice?.text == "Pipes Tee is on sale, last in the shop.")
        let made = try #require(admin.state.merchant?.catalog.products.last)
        #expect(made.id == "tee-pipes" && made.version == 1 && made.updatedBy == "local:ada")
        #expect(admin.frameText.contains("tee-pipes v1 create by local:ada"))

        #expect(shop.state.productList.totalCount == before, "the shop's list is as it was read")
        try await shop.press("c,s,end")
        #expect(shop.state.productList.totalCount == before + 1, "back on the list, it is read again")
        #expect(shop.frameText.contains("Pipes Tee"))
        try await shop.press("enter")
        let tee = try #require(shop.state.productDetail?.product)
        #expect(tee.options.map(\.name) == ["Size", "Colour"])
        #expect(tee.variants.map(\.sku.rawValue) == ["tee-pipes-s-black", "tee-pipes-s-white", "tee-pipes-m-black", "tee-pipes-m-white"])
    }

    @Test func anEditOverAVersionSavedMeanwhileIsRefusedAndTheFormKept() async throws {
        let ada = await console("local:ada")
        let bo = await console("local:bo")
        try await ada.press("4")
        try await ada.press("down")
        try await bo.press("4")
        try await bo.press("down")
        #expect(ada.state.merchant?.catalog.selected?.id == "mug-stdout")
        // Both open the mug at version 1; Bo saves first.
        try await ada.press("enter")
        try await bo.press("enter")
        await bo.type(" XL")
        try await bo.press("tab,tab,tab,tab,tab,tab,enter")
        #expect(bo.state.notice?.text == "Saved stdout Mug XL, version 2: the shop shows it at its next screen.")
        await ada.type(" Mini")
        try await ada.press("tab,tab,tab,tab,tab,tab,enter")
        #expect(ada.state.screen == .form, "the form stays, with what was typed")
        #expect(
            ada.state.form?.status
                == "mug-stdout changed meanwhile (now version 2, by local:bo): nothing was saved. Read it again and make the change on that.")
        #expect(ada.state.form?.fields.first { $0.id == "name" }?.value == "stdout Mug Mini")
        #expect(try await shopStack.catalog.product(id: "mug-stdout")?.name == "stdout Mug XL")
    }

    @Test func unpublishingAndArchivingTakeAProductOutOfTheShopAndPublishingBringsItBack() async throws {
        let admin = await console("local:ada")
        try await admin.press("4")
        try await admin.press("down")
        try await admin.press("p")
        #expect(admin.state.notice?.text == "stdout Mug is out of the shop until you publish it again (p).")
        #expect(try await shopStack.catalog.product(id: "mug-stdout") == nil)
        let mug = try #require(admin.state.merchant?.catalog.products.first { $0.id == "mug-stdout" })
        #expect(mug.status == .unpublished && mug.version == 2)
        // Out of the shop, it is listed after the published ones: the last row.
        try await admin.press("end")
        try await admin.press("x")
        #expect(admin.state.notice?.text == "Archived stdout Mug: out of the shop; its orders keep their lines. p publishes it again.")
        try await admin.press("p")
        #expect(try await shopStack.catalog.product(id: "mug-stdout")?.name == "stdout Mug")
        #expect(admin.state.merchant?.catalog.history.map(\.action) == ["publish", "archive", "unpublish"])
    }

    /// The form's picture field: a file on this machine, checked as every picture is, kept and put first; a bad one is
    /// the field's problem and nothing is saved.
    @Test func aPictureFileNamedInTheFormIsKeptAndPutFirst() async throws {
        let admin = await console("local:ada")
        try await admin.press("4,down,enter")
        #expect(admin.state.form?.fields.last?.id == "picture")
        #expect(admin.state.form?.fields.last?.hint == "now pictures/mug-stdout.png; a PNG or JPEG file here to put first")
        let mugBefore = try #require(try await shopStack.catalog.product(id: "mug-stdout"))
        try await admin.press("tab,tab,tab,tab,tab,tab")
        await admin.type("/no/such/duck.png")
        try await admin.press("enter")
        #expect(admin.state.screen == .form)
        #expect(
            admin.state.form?.fields.last?.error?.description == "picture: /no/such/duck.png: no such file", "\(admin.state.form?.fields.last as Any)"
        )
        #expect(try await shopStack.catalog.product(id: "mug-stdout") == mugBefore, "nothing saved")

        for _ in 0..<"/no/such/duck.png".count { try await admin.press("backspace") }
        await admin.type(PictureDecoderTests.fixtures.appending(path: "duck.jpg").path)
        try await admin.press("enter")
        #expect(admin.state.notice?.text == "Saved stdout Mug, version 2: the shop shows it at its next screen.", "\(admin.state.form as Any)")
        let mug = try #require(try await shopStack.catalog.product(id: "mug-stdout"))
        let duck = PictureUpload.digest(PictureDecoderTests.duckJPEG)
        #expect(mug.pictures.map(\.digest) == [duck] + mugBefore.pictures.map(\.digest), "the duck first, the mug's own kept")
        #expect(try await shopStack.storage.pictures.picture(digest: duck)?.mediaType == "image/jpeg")
    }

    @Test func aProductsProblemsAreToldByTheirFields() async throws {
        let admin = await console("local:ada")
        try await admin.press("4,n")
        try await fill(admin, ["bad id!", "", "", "", "twelve", "", "Size S", ""])
        let errors = Dictionary(uniqueKeysWithValues: (admin.state.form?.fields ?? []).compactMap { field in field.error.map { (field.id, $0) } })
        #expect(
            errors == [
                "id": "Enter 1 to 80 letters, digits, - or _.", "price": "Enter a price such as 24.00.",
                "options": "Write each option as Name: value, value; such as Size: S, M, L.",
            ])
        #expect(admin.state.form?.focusedIndex == 0, "the first field with a problem")
        for _ in 0..<7 { try await admin.press("backspace") }
        await admin.type("tee")
        try await admin.press("tab,tab,tab,tab")
        for _ in 0..<6 { try await admin.press("backspace") }
        await admin.type("12")
        try await admin.press("tab,tab")
        for _ in 0..<6 { try await admin.press("backspace") }
        try await admin.press("enter,enter")
        // The form's own checks pass; the catalog's find the name and description missing, by their fields.
        #expect(admin.state.form?.status == nil, "\(admin.state.form?.status ?? "")")
        #expect(
            admin.state.form?.fields.first { $0.id == "name" }?.error?.description.hasPrefix("name:") == true,
            "\(String(describing: admin.state.form?.fields.map { ($0.id, $0.value, $0.error ?? "") }))")
        #expect(admin.state.form?.fields.first { $0.id == "description" }?.error?.description.hasPrefix("description:") == true)
        #expect(try await shopStack.catalog.product(id: "tee") == nil)
    }
}
