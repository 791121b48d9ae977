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

    /// Test hook: a FIFO's path. A restore holding the shop's lock, its copy made, waits there until a writer sends a
    /// byte through the FIFO, so a test can start processes against a restore under way (an end without a byte, or a
    /// signal, is waited past: only the byte lets it go).
    static let holdVariable = "STOREFRONT_FAULT_RESTORE_HOLD"

    private static func holdAt(_ fifo: String) {
        // A signal the process takes meanwhile interrupts the wait (EINTR): it waits on, until the writer closes.
        var descriptor: Int32
        repeat { descriptor = open(fifo, O_RDONLY | O_CLOEXEC) } while descriptor < 0 && errno == EINTR
        guard descriptor >= 0 else { return }
        var byte: UInt8 = 0
        while true {
            let count = read(descriptor, &byte, 1)
            if count > 0 { break }
            if count < 0 && errno == EINTR { continue }
            // The writer went without the byte: wait for the next one.
            close(descriptor)
            repeat { descriptor = open(fifo, O_RDONLY | O_CLOEXEC) } while descriptor < 0 && errno == EINTR
            guard descriptor >= 0 else { return }
        }
        close(descriptor)
    }

    static func megabytes(_ bytes: Int) -> String { String(format: "%.1f MB", Double(bytes) / 1_000_000) }
}
