import Foundation
import ShopBundledCatalog
import StorefrontTesting
import Testing

/// Pictures through the real binary: a catalog's bad pictures refused by name, a shop's pictures exported beside its
/// catalog and imported again, and the product page in a 256-colour terminal (a colour mosaic) and without colour
/// (the art).
@Suite("Product pictures in real processes", .ownThreads)
struct ProductPictureJourneyTests {
    /// A folder holding the bundled catalog and its pictures, as a merchant keeps them.
    static func catalogFolder() throws -> URL {
        let folder = TemporaryDirectory.make()
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try BundledCatalog.json.write(to: folder.appending(path: "catalog.json"), atomically: true, encoding: .utf8)
        try Fixtures.writeBundledPictures(besideCatalogIn: folder)
        return folder
    }

    @Test func badPicturesAreRefusedEachByItsProductAndFile() throws {
        let folder = try Self.catalogFolder()
        // An image bomb, a file cut short, text named .png, and a path out of the catalog's folder.
        try Data(Fixtures.png(width: 50_000, height: 50_000)).write(to: folder.appending(path: "pictures/mug-stdout.png"))
        let duck = try Data(contentsOf: folder.appending(path: "pictures/rubber-duck.png"))
        try duck.prefix(duck.count / 3).write(to: folder.appending(path: "pictures/rubber-duck.png"))
        try Data("not a picture".utf8).write(to: folder.appending(path: "pictures/tote-canvas.png"))
        let catalog = folder.appending(path: "catalog.json").path
        var text = try String(contentsOfFile: catalog, encoding: .utf8)
        text = text.replacingOccurrences(of: "\"pictures/usb-hub.png\"", with: "\"../usb-hub.png\"")
        try text.write(toFile: catalog, atomically: true, encoding: .utf8)

        let result = try Subprocess.run(try BuiltProduct.requireStorefront(), ["catalog", "validate", catalog])
        #expect(result.status == 65)
        #expect(result.stderr.contains("(product \"usb-hub\"): must be a relative path inside the catalog's folder"), "\(result.stderr)")
        // The path is told first; the files are read only once the catalog itself is valid.
        text = text.replacingOccurrences(of: "\"../usb-hub.png\"", with: "\"pictures/usb-hub.png\"")
        try text.write(toFile: catalog, atomically: true, encoding: .utf8)
        let files = try Subprocess.run(try BuiltProduct.requireStorefront(), ["catalog", "validate", catalog])
        #expect(files.status == 65)
        #expect(
            files.stderr.contains(
                "(product \"mug-stdout\"): pictures/mug-stdout.png: too large: 50000x50000 pixels is more than the 8192-pixel side and 24000000 pixels allowed"
            ), "\(files.stderr)")
        #expect(files.stderr.contains("(product \"rubber-duck\"): pictures/rubber-duck.png: cut short: the PNG ends before its last pixels"))
        #expect(files.stderr.contains("(product \"tote-canvas\"): pictures/tote-canvas.png: not a PNG or JPEG picture"))

        // The shop does not start on it, and says why.
        let data = TemporaryDirectory.make().path
        let started = try Subprocess.run(try BuiltProduct.requireStorefront(), ["headless", "--catalog", catalog, "--data-dir", data, "--keys", "q"])
        #expect(started.status == 65)
        #expect(started.stderr.contains("pictures/mug-stdout.png: too large"))
    }

    @Test func aShopsPicturesAreExportedBesideItsCatalogAndImportAgain() throws {
        let binary = try BuiltProduct.requireStorefront()
        let folder = try Self.catalogFolder()
        let data = TemporaryDirectory.make().path
        #expect(
            try Subprocess.run(binary, ["headless", "--catalog", folder.appending(path: "catalog.json").path, "--data-dir", data, "--keys", "q"])
                .status == 0)

        let out = TemporaryDirectory.make()
        let exported = try Subprocess.run(binary, ["catalog", "export", out.appending(path: "shop/catalog.json").path, "--data-dir", data])
        #expect(exported.status == 0, "\(exported.stderr)")
        for name in ["mug-stdout.png", "coffee-beans-1kg.png", "rubber-duck.png"] {
            let written = try Data(contentsOf: out.appending(path: "shop/pictures/\(name)"))
            #expect(written == (try Data(contentsOf: folder.appending(path: "pictures/\(name)"))), "\(name) byte for byte")
        }
        // The export names each picture with its digest and size, and a second shop reads it with the files beside.
        let document = try String(contentsOf: out.appending(path: "shop/catalog.json"), encoding: .utf8)
        #expect(document.contains("\"file\" : \"pictures/mug-stdout.png\""))
        #expect(document.contains("\"width\" : 384"))
        let second = TemporaryDirectory.make().path
        let reopened = try Subprocess.run(
            binary, ["headless", "--catalog", out.appending(path: "shop/catalog.json").path, "--data-dir", second, "--keys", "q"])
        #expect(reopened.status == 0, "\(reopened.stderr)")
    }

    /// The cart at 130x34 in a 256-colour terminal: the selected line's picture right of the lines, and the next
    /// line's once the selection moves.
    @Test func theCartShowsTheSelectedLinesPicture() throws {
        let binary = try BuiltProduct.requireStorefront()
        let terminal = try TmuxTerminal(columns: 130, rows: 34, environment: ["NO_COLOR": ""])
        try terminal.type("'\(binary)' --data-dir '\(terminal.directory.path)/data'")
        try terminal.waitUntil("the list") { $0.contains("stdout Mug") }
        try terminal.press("a")
        try terminal.press("Down")
        try terminal.press("a")
        try terminal.press("c")
        func pictureCells() throws -> Int {
            let coloured = try terminal.tmux(["capture-pane", "-p", "-e", "-t", "main"])
            // Right of the lines: every row's last 40 columns hold the picture's block symbols in their own colours.
            return coloured.split(separator: "\n").dropFirst(3).prefix(20).joined().components(separatedBy: "48;5;").count - 1
        }
        let screen = try terminal.waitUntil("the cart with its picture") { screen in
            screen.contains("Your cart") && screen.contains("2 lines")
                && screen.split(separator: "\n").dropFirst(3).prefix(20).contains { line in
                    line.unicodeScalars.suffix(42).contains { (0x2580...0x259F).contains($0.value) }
                }
        }
        #expect(try pictureCells() > 20, "\(screen)")
        let first = try terminal.tmux(["capture-pane", "-p", "-t", "main"])
        try terminal.press("Down")
        let moved = try terminal.waitUntil("the mug's picture") { screen in
            screen != first && screen.contains("› stdout Mug")
        }
        #expect(
            moved.split(separator: "\n").dropFirst(3).prefix(20).contains {
                $0.unicodeScalars.suffix(42).contains { (0x2580...0x259F).contains($0.value) }
            })
        try terminal.press("q")
    }

    @Test func theProductPageShowsAColourMosaicAndTheArtWithoutColour() throws {
        let binary = try BuiltProduct.requireStorefront()
        for (environment, mosaic) in [("", true), ("NO_COLOR=1 ", false), ("STOREFRONT_PICTURES=art ", false)] {
            // NO_COLOR empty, as unset: the test runner's own would make every terminal monochrome.
            let terminal = try TmuxTerminal(columns: 120, rows: 34, environment: ["NO_COLOR": ""])
            try terminal.type("\(environment)'\(binary)' --data-dir '\(terminal.directory.path)/data'")
            try terminal.waitUntil("the list") { $0.contains("stdout Mug") }
            try terminal.selectRow(containing: "stdout Mug")
            try terminal.press("Enter")
            // The picture is drawn when it comes, after the page.
            let screen = try terminal.waitUntil("the mug's page") { screen in
                // The list's preview holds the description too: the page is the one whose footer says Esc back.
                screen.contains("Esc back") && screen.contains("Holds a long build")
                    && (!mosaic || screen.unicodeScalars.contains { (0x2580...0x259F).contains($0.value) })
            }
            let coloured = try terminal.tmux(["capture-pane", "-p", "-e", "-t", "main"])
            // The picture's rows, left of the page's text: Block Elements in 256 colours.
            let pictureRows = coloured.split(separator: "\n").dropFirst(4).prefix(12)
            let blocks = pictureRows.joined().unicodeScalars.filter { (0x2580...0x259F).contains($0.value) }.count
            let backgrounds = pictureRows.joined().components(separatedBy: "48;5;").count - 1
            if mosaic {
                #expect(blocks > 60, "\(screen)")
                #expect(backgrounds > 20, "each cell in its own colours")
                #expect(!screen.contains("|  $_  |]"), "no art beside a picture")
            } else {
                #expect(blocks == 0, "\(environment): \(screen)")
                #expect(screen.contains("|  $_  |]"), "the mug's art")
            }
            try terminal.press("q")
        }
    }
}
