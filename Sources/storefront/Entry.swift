import Dispatch
import Foundation
import PseudoTerminal
import ShopModels
import ShopSandbox
import StorageSQLite
import StorefrontCore
import StorefrontUI

/// Where the program starts. Synchronous on purpose: a session host must fork before any thread exists, and an
/// asynchronous `main` starts libdispatch's threads before its first line runs.
@main
enum Entry {
    static func main() {
        SQLiteDatabase.useLittleMemory()
        // In a session host this returns only in each forked session, with the arguments that session runs.
        let arguments = SessionHost.serveIfAsked(warmUp: SessionWarmUp.run)
        Task { @MainActor in
            await Storefront.start(arguments)
            exit(0)
        }
        dispatchMain()
    }
}

/// What a session host does once, before it forks any session, so that each session finds it done: the Swift
/// runtime's type and conformance caches filled by the code every session runs first, on pages all sessions share.
/// Nothing here may start a thread (no tasks, no dispatch queues, no database).
enum SessionWarmUp {
    static func run() {
        _ = try? Storefront.parseAsRoot(["run", "--theme", "dark"])
        guard let catalog = try? CatalogLoader.load(data: Data(BundledCatalog.json.utf8), source: "bundled catalog") else { return }
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
