import Foundation
import ShopBootstrap
import SystemPackage

/// `storefront backup` and `storefront restore` (docs/operations.md).
public enum BackupCommands {
    public static func backup(to destination: String, configuration: ShopConfiguration, environment: [String: String]) async throws {
        let directory = configuration.dataDirectory(environment: environment)
        let summary = try await openingStorage {
            try ShopBackups.backup(configuration.storagePlace(dataDirectory: directory), to: FilePath(destination))
        }
        printSafely(
            "Backed up the shop in \(directory) to \(destination): \(summary.orders) orders, \(summary.products) products, \(megabytes(summary.bytes)); checked (integrity ok, \(summary.schemaSteps) schema steps)."
        )
    }

    public static func restore(from source: String, configuration: ShopConfiguration, environment: [String: String]) async throws {
        let directory = configuration.dataDirectory(environment: environment)
        let hold = environment[holdVariable]
        let summary = try await openingStorage {
            try ShopBackups.restore(configuration.storagePlace(dataDirectory: directory), from: FilePath(source)) {
                if let hold { holdAt(hold) }
            }
        }
        printSafely("Restored the shop in \(directory) from \(source): \(summary.orders) orders, \(summary.products) products.")
    }

    /// Test hook: a FIFO's path. A restore holding the shop's lock, its copy made, waits there until a writer opens the
    /// FIFO and closes it, so a test can start processes against a restore under way.
    static let holdVariable = "STOREFRONT_FAULT_RESTORE_HOLD"

    private static func holdAt(_ fifo: String) {
        let descriptor = open(fifo, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return }
        var byte: UInt8 = 0
        while read(descriptor, &byte, 1) > 0 {}
        close(descriptor)
    }

    static func megabytes(_ bytes: Int) -> String { String(format: "%.1f MB", Double(bytes) / 1_000_000) }
}
