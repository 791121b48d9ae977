import ArgumentParser
import Foundation
import ShopCommands

/// `storefront backup PATH`: a consistent copy of a live SQLite shop (docs/operations.md).
struct BackupCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "backup",
        abstract: "Copy the live SQLite shop to a new file while shoppers buy, and check the copy (docs/operations.md).",
        discussion:
            "Exits 0 with the copy checked, 66 when there is no shop, 73 when PATH exists or cannot be made, 64 for a PostgreSQL shop (use pg_dump), 74 for a read or write that failed."
    )

    @Argument(help: ArgumentHelp("The new file to write.", valueName: "path"))
    var path: String

    @OptionGroup var shop: ShopDatabaseOptions

    func run() async throws {
        try await BackupCommands.backup(to: path, configuration: shop.configuration(), environment: ProcessInfo.processInfo.environment)
    }
}

/// `storefront restore PATH`: a backup put in place of the stopped shop (docs/operations.md).
struct RestoreCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "restore",
        abstract: "Check a backup and put it in place of the SQLite shop, which must be stopped (docs/operations.md).",
        discussion:
            "Exits 0 when restored, 75 while a storefront process has the shop open (nothing is changed), 65 for a file that is not a whole storefront database, 66 when PATH is missing, 64 for a PostgreSQL shop."
    )

    @Argument(help: ArgumentHelp("The backup to restore.", valueName: "path"))
    var path: String

    @OptionGroup var shop: ShopDatabaseOptions

    func run() async throws {
        try await BackupCommands.restore(from: path, configuration: shop.configuration(), environment: ProcessInfo.processInfo.environment)
    }
}
