import Foundation
import ShopBootstrap
import ShopModels
import StoragePostgres
import SystemPackage

/// `storefront catalog` and `storefront db`: catalog files checked and imported, and the PostgreSQL schema migrated.
public enum CatalogCommands {
    /// Checks a catalog file: 0 when valid, 65 with every problem listed, 66 when it is missing.
    public static func validate(_ path: FilePath) throws {
        let (catalog, _) = try load(path)
        emit("\(path): valid, \(catalog.products.count) products in \(catalog.shop.currency.code) for \(catalog.shop.name)\n", to: STDOUT_FILENO)
    }

    /// Imports or updates the catalog in the shop's PostgreSQL, in one transaction.
    public static func importCatalog(
        _ path: FilePath, databaseFlag: String?, migrate: Bool, environment: [String: String] = ProcessInfo.processInfo.environment
    ) async throws {
        let url = try PostgresSetup.databaseURL(flag: databaseFlag, environment: environment)
        let (catalog, data) = try load(path)
        let database = try await PostgresSetup.connect(url, pool: .command, migrate: migrate, environment: environment)
        defer { database.close() }
        let summary: PostgresCatalogRepository.ImportSummary
        do {
            summary = try await PostgresCatalogRepository.importCatalog(catalog, contentHash: ContentHash.fnv1a64(data), into: database)
        } catch {
            throw PostgresSetup.exit(for: error)
        }
        let place = database.location.description
        guard summary.changed else {
            emit("\(place) already holds this catalog (\(summary.products) products); nothing changed\n", to: STDOUT_FILENO)
            return
        }
        emit("imported \(summary.products) products into \(place): \(summary.added) new, \(summary.retired) no longer listed\n", to: STDOUT_FILENO)
    }

    /// Applies the schema steps the database lacks.
    public static func migrate(databaseFlag: String?, environment: [String: String] = ProcessInfo.processInfo.environment) async throws {
        let url = try PostgresSetup.databaseURL(flag: databaseFlag, environment: environment)
        let database = try await PostgresSetup.connect(url, pool: .command, migrate: false, environment: environment, checkSchema: false)
        defer { database.close() }
        let applied: [String]
        do {
            applied = try await database.migrate()
        } catch {
            throw PostgresSetup.exit(for: error)
        }
        let place = database.location.description
        emit(applied.isEmpty ? "\(place): the schema is up to date\n" : "\(place): applied \(applied.joined(separator: ", "))\n", to: STDOUT_FILENO)
    }

    /// Reads and validates a catalog file: exits 66 when it is missing or not a file, 65 with every problem when it is invalid.
    static func load(_ path: FilePath) throws -> (Catalog, Data) {
        guard FileManager.default.fileExists(atPath: path.string) else {
            complain("no such file: \(path)")
            throw ExitCodes.noInput
        }
        guard isRegularFile(path) else {
            complain("\(path) is not a regular file")
            throw ExitCodes.noInput
        }
        let data: Data
        do {
            data = try Data(contentsOf: URL(fileURLWithPath: path.string))
        } catch {
            complain("cannot read \(path): \(error.localizedDescription)")
            throw ExitCodes.noInput
        }
        do {
            return (try CatalogLoader.load(data: data, source: path.string), data)
        } catch let error as CatalogError {
            emit("\(error)\n", to: STDERR_FILENO)
            throw ExitCodes.dataError
        }
    }
}
