import ArgumentParser
import Foundation
import ShopBootstrap
import ShopBundledCatalog
import ShopModels
import ShopSessions
import StorefrontCore
import StorefrontUI
import SystemPackage

/// What a session host does once, before it forks any session, so that each session finds it done, on pages all
/// sessions share: the Swift runtime's caches filled by what every session does first (each first dynamic cast of a
/// type to a protocol scans all 11,000 conformance records of this binary), the locale loaded, a frame laid out.
/// Nothing here may start a thread: no tasks, no dispatch queues, no database.
enum SessionWarmUp {
    /// The shop's command line as the server gives it to every session (the host's own arguments), parsed once here:
    /// a session whose arguments are these runs this value instead of parsing them again (ArgumentParser reflects
    /// over every option of every command it passes through, a tenth of a session's start).
    // nonisolated(unsafe): written once by `run`, before the process has a second thread; only read after.
    nonisolated(unsafe) private static var prepared: (arguments: [String], command: any ParsableCommand)?

    static func run() {
        let arguments = Array(CommandLine.arguments.dropFirst())
        if !arguments.isEmpty, let command = try? Storefront.parseAsRoot(arguments) {
            _ = command as? any AsyncParsableCommand
            prepared = (arguments, command)
        }
        // The settings every session of this host is handed, decoded once here.
        _ = try? SessionSettings.handedOver(in: ProcessInfo.processInfo.environment)
        // The merchant console's command line, and the cast `Storefront.start` makes of it.
        if let command = try? Storefront.parseAsRoot(["admin", "--data-dir", "/"]) { _ = command as? any AsyncParsableCommand }
        // Every session runs in C.UTF-8 (SessionCommand.setLocale); glibc keeps a locale it has loaded.
        _ = setlocale(LC_ALL, "C.UTF-8")
        _ = setlocale(LC_ALL, "C")
        // What a start does with files, users and text: attributes, home directories, descriptions of values.
        _ = try? FileManager.default.attributesOfItem(atPath: "/")
        _ = FileManager.default.fileExists(atPath: "/")
        _ = FileManager.default.homeDirectoryForCurrentUser
        _ = getpwuid(getuid())
        // What opening and closing a database pool does in Foundation (GRDB's WAL check, its memory-warning observer).
        _ = try? URL(fileURLWithPath: "/").resourceValues(forKeys: [.fileSizeKey])
        NotificationCenter.default.removeObserver(NSObject(), name: nil, object: nil)
        let path = FilePath("/")
        _ = "\(1) \(1.5) \(true) \(path) \(URL(fileURLWithPath: "/")) \(Duration.milliseconds(1)) \(Date()) \(UTCTime(Date()).iso8601Milliseconds)"
        _ = [String(describing: path), String(describing: Optional(1))].joined(separator: " ")

        guard let catalog = try? CatalogLoader.load(data: Data(BundledCatalog.json.utf8), source: "bundled catalog") else { return }
        // The shop's profile as SQLite keeps it: every start reads it back.
        if let profile = try? JSONEncoder().encode(catalog.shop) { _ = try? JSONDecoder().decode(ShopProfile.self, from: profile) }
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

    /// The command parsed before the fork, when `arguments` are the ones it was parsed from.
    static func preparedCommand(for arguments: [String]?) -> (any ParsableCommand)? {
        guard let prepared, let arguments, arguments == prepared.arguments else { return nil }
        return prepared.command
    }
}
