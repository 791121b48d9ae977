import ArgumentParser
import Foundation
import StoreModels
import StorePostgres
import StoreSQLite
import StorefrontUI

/// `storefront orders`: the order history as a table, or JSON for scripts.
struct OrdersCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "orders",
        abstract: "List placed orders of every customer, newest first."
    )

    @Option(help: ArgumentHelp("Only this customer's orders: local:<user>, sandbox-id:<id> or ssh:SHA256:<fingerprint>.", valueName: "id"))
    var customer: String?

    @Option(name: .customLong("data-dir"), help: ArgumentHelp("Where the shop keeps its files. Default: $XDG_DATA_HOME/storefront. Env: STOREFRONT_DATA_DIR.", valueName: "path"))
    var dataDirectory: String?

    @Option(help: ArgumentHelp("Read the orders from this PostgreSQL instead of the data directory's SQLite. Env: STOREFRONT_DATABASE_URL.", valueName: "url"))
    var database: String?

    @Flag(help: "Print JSON instead of a table.")
    var json = false

    @Option(help: ArgumentHelp("Show at most this many orders.", valueName: "n"))
    var limit: Int = 1_000

    func validate() throws {
        guard limit > 0 else { throw ValidationError("--limit must be at least 1") }
    }

    func run() throws {
        // The same precedence as the shop itself: flag, environment, config file, default.
        let environment = ProcessInfo.processInfo.environment
        let configuration = try Configuration.loadForCommand(environment: environment)
        let directory = dataDirectory ?? configuration.dataDirectory ?? Configuration.defaultDataDirectory(environment: environment)
        let orders: [Order]
        if let url = database ?? configuration.database {
            // Listing writes nothing: the schema is checked, never migrated.
            let store = try PostgresSetup.connect(url, pool: .command, migrate: false, environment: environment)
            defer { store.close() }
            do {
                orders = try PostgresOrderStore(database: store, currency: .usd).orders(customer: customer, offset: 0, limit: limit)
            } catch {
                complain("\(error)")
                throw ExitCodes.ioError
            }
            emit((json ? Self.json(orders) : Self.table(orders)) + "\n", to: STDOUT_FILENO)
            return
        }
        do {
            let path = URL(fileURLWithPath: directory).appendingPathComponent(StoreDatabase.fileName).path
            // Listing writes nothing: no database yet means no orders yet, and an existing one is opened read-only.
            guard FileManager.default.fileExists(atPath: path) else {
                emit((json ? Self.json([]) : Self.table([])) + "\n", to: STDOUT_FILENO)
                return
            }
            let database = try StoreDatabase.openReadOnly(path: path)
            orders = try SQLiteOrderStore(database: database, currency: .usd).orders(customer: customer, offset: 0, limit: limit)
        } catch {
            complain("\(error)")
            throw ExitCodes.ioError
        }
        emit((json ? Self.json(orders) : Self.table(orders)) + "\n", to: STDOUT_FILENO)
    }

    static func table(_ orders: [Order]) -> String {
        guard !orders.isEmpty else { return "No orders yet." }
        let header = ["Order", "Placed (UTC)", "Items", "Status", "Total", "Customer"]
        let rows = orders.map { order in
            [order.number, Layout.timestamp(order.placedAt), String(order.itemCount), order.status.displayName, order.totals.total.formatted,
             order.customerID.isEmpty ? "-" : order.customerID]
        }
        let widths = header.indices.map { column in ([header] + rows).map { $0[column].count }.max() ?? 0 }
        func line(_ cells: [String]) -> String {
            cells.enumerated().map { column, cell in
                // Numbers and money align right.
                column == 2 || column == 4 ? String(repeating: " ", count: widths[column] - cell.count) + cell : cell.padding(toLength: widths[column], withPad: " ", startingAt: 0)
            }.joined(separator: "  ").trimmingCharacters(in: .whitespaces)
        }
        return ([line(header)] + rows.map(line)).joined(separator: "\n")
    }

    static func json(_ orders: [Order]) -> String {
        let objects: [[String: Any]] = orders.map { order in
            [
                "number": order.number,
                "placedAt": UTCTime(order.placedAt).iso8601,
                "status": order.status.rawValue,
                "currency": order.totals.total.currency.code,
                "subtotal": order.totals.subtotal.minorUnits,
                "shipping": order.totals.shipping.minorUnits,
                "tax": order.totals.tax.minorUnits,
                "total": order.totals.total.minorUnits,
                "payment": order.paymentDescription,
                "shippingMethod": order.shippingMethodLabel,
                "shipTo": order.shipTo,
                "customer": order.customerID,
                "lines": order.lines.map { ["productId": $0.productID.rawValue, "name": $0.name, "unitPrice": $0.unitPrice.minorUnits, "quantity": $0.quantity] as [String: Any] },
            ]
        }
        let data = (try? JSONSerialization.data(withJSONObject: objects, options: [.prettyPrinted, .sortedKeys])) ?? Data("[]".utf8)
        return String(decoding: data, as: UTF8.self)
    }
}
