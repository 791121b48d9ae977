import Foundation
import ShopBootstrap
import ShopBundledCatalog
import ShopModels
import StorefrontCore
import StorefrontUI
import SystemPackage
import TerminalNCurses

extension TerminalShop {
    /// What every session does first, done once in a session host before it forks, so that each session finds it done
    /// on pages all sessions share: the locale loaded, Foundation's first file, user and text work, a frame laid out.
    /// Nothing here may start a thread: no tasks, no dispatch queues, no database.
    public static func warmUp() {
        // Every session runs in C.UTF-8 (SessionCommand.setLocale); glibc keeps a locale it has loaded.
        _ = setlocale(LC_ALL, "C.UTF-8")
        _ = setlocale(LC_ALL, "C")
        // What a start does with files, users and text: attributes, home directories, descriptions of values.
        _ = try? FileManager.default.attributesOfItem(atPath: "/")
        _ = FileManager.default.fileExists(atPath: "/")
        _ = FileManager.default.homeDirectoryForCurrentUser
        _ = (ProcessUser.name, ProcessUser.home)
        // What opening and closing a database pool does in Foundation (GRDB's WAL check, its memory-warning observer).
        _ = try? URL(fileURLWithPath: "/").resourceValues(forKeys: [.fileSizeKey])
        NotificationCenter.default.removeObserver(NSObject(), name: nil, object: nil)
        let path = FilePath("/")
        _ = "\(1) \(1.5) \(true) \(path) \(URL(fileURLWithPath: "/")) \(Duration.milliseconds(1)) \(Date()) \(UTCTime(Date()).iso8601Milliseconds)"
        _ = [String(describing: path), String(describing: Optional(1))].joined(separator: " ")

        TerminalWarmUp.prepare()
        guard let catalog = try? CatalogLoader.load(data: Data(BundledCatalog.json.utf8), source: "bundled catalog") else { return }
        // The shop's profile as SQLite keeps it: every start reads it back.
        _ = ShopProfile(storedJSON: catalog.shop.storedJSON)
        var state = StorefrontState(shopName: catalog.shop.name, currency: catalog.shop.currency)
        state.productList.rows = Array(catalog.products.prefix(60))
        state.productList.totalCount = catalog.products.count
        for size in [Size(columns: 80, rows: 24), Size(columns: 200, rows: 60)] {
            for charset in [Charset.unicode, .ascii] {
                let frame = layout(state, size, charset: charset)
                _ = layout(state, size, charset: charset, previous: frame)
            }
        }
    }
}
