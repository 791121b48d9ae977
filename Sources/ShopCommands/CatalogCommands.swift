import Foundation
import ShopBootstrap
import ShopModels
import ShopPorts
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
        let summary: PostgresCatalogImport.ImportSummary
        do {
            summary = try await PostgresCatalogImport.importCatalog(catalog, contentHash: ContentHash.fnv1a64(data), into: database)
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

    /// Writes the shop's catalog as it is now (its products, options, variants and the stock on hand) to `path`, or to
    /// standard output for "-", in the file format `catalog import` and `--catalog` read back to the same catalog.
    /// 73 when the file cannot be written (nothing is left half-written), 74 when storage fails.
    public static func export(
        to path: FilePath, configuration: ShopConfiguration, environment: [String: String] = ProcessInfo.processInfo.environment
    ) async throws {
        let storage = try await ShopStorage.openForMerchant(configuration: configuration, environment: environment)
        defer { storage.close() }
        let data: Data
        do {
            data = try CatalogWriter.json(try await everyProduct(of: storage.catalog))
        } catch {
            complain("cannot read the catalog: \(error)")
            throw ExitCodes.ioError
        }
        if path.string == "-" {
            try writeResult(String(decoding: data, as: UTF8.self), what: "the catalog")
            return
        }
        do {
            // Written beside the file and renamed over it: a reader never sees half a catalog.
            try data.write(to: URL(fileURLWithPath: path.string), options: .atomic)
        } catch {
            complain("cannot write \(path): \((error as NSError).localizedDescription)")
            throw ExitCodes.cannotCreate
        }
        emit("wrote \(path): the catalog of \(storage.catalog.shop.name)\n", to: STDERR_FILENO)
    }

    /// The catalog's products in catalog order, a thousand at a time, with their variants.
    static func everyProduct(of catalog: any CatalogRepository) async throws -> Catalog {
        // The catalog as its file writes it: no market's prices, and the profile's regions in their own currencies.
        let catalog = MarketCatalog.unpriced(catalog)
        let total = try await catalog.count(matching: "")
        var products: [Product] = []
        products.reserveCapacity(total)
        while products.count < total {
            let page = try await catalog.page(matching: "", offset: products.count, limit: 1_000)
            guard !page.isEmpty else { break }
            products += page
        }
        return Catalog(shop: catalog.shop, products: products)
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
