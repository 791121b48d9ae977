import Foundation
import ShopBootstrap
import ShopModels
import ShopPictures
import ShopPorts
import StoragePostgres
import SystemPackage

/// `storefront catalog` and `storefront db`: catalog files checked and imported, and the PostgreSQL schema migrated.
public enum CatalogCommands {
    /// Checks a catalog file: 0 when valid, 65 with every problem listed, 66 when it is missing.
    public static func validate(_ path: FilePath) throws {
        let (resolved, _) = try load(path)
        let catalog = resolved.catalog
        let pictures = resolved.pictures.isEmpty ? "" : ", \(resolved.pictures.count) pictures"
        emit(
            "\(path): valid, \(catalog.products.count) products\(pictures) in \(catalog.shop.currency.code) for \(catalog.shop.name)\n",
            to: STDOUT_FILENO)
    }

    /// Imports or updates the catalog in the shop's PostgreSQL, in one transaction.
    public static func importCatalog(
        _ path: FilePath, databaseFlag: String?, migrate: Bool, environment: [String: String] = ProcessInfo.processInfo.environment
    ) async throws {
        let url = try PostgresSetup.databaseURL(flag: databaseFlag, environment: environment)
        let (resolved, data) = try load(path)
        let database = try await PostgresSetup.connect(url, pool: .command, migrate: migrate, environment: environment)
        defer { database.close() }
        let summary: PostgresCatalogImport.ImportSummary
        do {
            // The pictures' digests are part of what is imported: a picture changed under the same name imports again.
            let references = resolved.catalog.pictureReferences
            let hash = ContentHash.fnv1a64(data + Data(references.map(\.digest).joined().utf8))
            summary = try await PostgresCatalogImport.importCatalog(resolved.catalog, pictures: resolved.pictures, contentHash: hash, into: database)
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
        let catalog: Catalog
        do {
            catalog = try await everyProduct(of: storage.catalog)
            data = try CatalogWriter.json(catalog)
        } catch {
            complain("cannot read the catalog: \(error)")
            throw ExitCodes.ioError
        }
        let pictures = Dictionary(
            catalog.pictureReferences.map { ($0.file, $0) }, uniquingKeysWith: { first, _ in first })
        if path.string == "-" {
            if !pictures.isEmpty { complain("the catalog names \(pictures.count) pictures, which only an export to a file writes beside it") }
            try writeResult(String(decoding: data, as: UTF8.self), what: "the catalog")
            return
        }
        // The pictures first, each beside where the catalog names it: a catalog file never names one not yet there.
        let folder = URL(fileURLWithPath: path.string).deletingLastPathComponent()
        for (file, picture) in pictures.sorted(by: { $0.key < $1.key }) {
            let target = folder.appending(path: file)
            do {
                guard let stored = try await storage.pictures.picture(digest: picture.digest) else {
                    complain("the shop holds no picture \(picture.digest) for \(file)")
                    throw ExitCodes.ioError
                }
                try FileManager.default.createDirectory(at: target.deletingLastPathComponent(), withIntermediateDirectories: true)
                try Data(stored.bytes).write(to: target, options: .atomic)
            } catch let exit as CommandExit {
                throw exit
            } catch {
                complain("cannot write \(target.path): \((error as NSError).localizedDescription)")
                throw ExitCodes.cannotCreate
            }
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

    /// Keeps a picture file in the shop, checked as a catalog's picture files are, and prints the reference a product's
    /// or variant's `pictures` names it by (one line of JSON). 66 when the file is missing, 65 when the picture is
    /// refused, 74 when storage fails.
    public static func keepPicture(
        _ path: FilePath, configuration: ShopConfiguration, environment: [String: String] = ProcessInfo.processInfo.environment
    ) async throws {
        let storage = try await ShopStorage.openForMerchant(configuration: configuration, environment: environment)
        defer { storage.close() }
        let taken: PictureIntakeResult
        do {
            taken = try await KeptPictureIntake(store: storage.pictures).take(file: path.string)
        } catch {
            complain(error.message.hasPrefix(path.string) ? error.message : "\(path): \(error.message)")
            switch error.reason {
            case .noSuchFile: throw ExitCodes.noInput
            case .storage: throw ExitCodes.ioError
            case .refused: throw ExitCodes.dataError
            }
        }
        let reference = taken.reference
        let line = try JSONSerialization.data(withJSONObject: CatalogWriter.pictureField(reference), options: [.sortedKeys, .withoutEscapingSlashes])
        emit(String(decoding: line, as: UTF8.self) + "\n", to: STDOUT_FILENO)
        let kind = taken.mediaType == "image/png" ? "PNG" : "JPEG"
        emit(
            "\(taken.isNew ? "kept" : "already held") \(path) (\(reference.width)x\(reference.height) \(kind), \(taken.byteCount) bytes); "
                + "name it in a product's or variant's \"pictures\"\n", to: STDERR_FILENO)
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

    /// Reads and validates a catalog file and the pictures beside it, each decoded (the file alone is checked: no shop's
    /// pictures stand in for a missing one): exits 66 when it is missing or not a file, 65 with every problem when it
    /// or a picture is invalid.
    static func load(_ path: FilePath) throws -> (ResolvedCatalog, Data) {
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
            let catalog = try CatalogLoader.load(data: data, source: path.string)
            do {
                return (try CatalogPictureImport.files(beside: URL(fileURLWithPath: path.string)).resolve(catalog, held: [:]), data)
            } catch {
                throw CatalogError(source: path.string, issues: error.issues)
            }
        } catch let error as CatalogError {
            emit("\(error)\n", to: STDERR_FILENO)
            throw ExitCodes.dataError
        }
    }
}
