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
        let summary = try await openingStorage {
            try ShopBackups.restore(configuration.storagePlace(dataDirectory: directory), from: FilePath(source))
        }
        printSafely("Restored the shop in \(directory) from \(source): \(summary.orders) orders, \(summary.products) products.")
    }

    static func megabytes(_ bytes: Int) -> String { String(format: "%.1f MB", Double(bytes) / 1_000_000) }
}
