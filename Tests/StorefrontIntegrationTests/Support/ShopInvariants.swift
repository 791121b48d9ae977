import Foundation
import GRDB
import Testing

/// What must hold of a SQLite shop after any test that bought in it: money, stock and mail add up.
///
/// - Money: each sandbox charge that went through belongs to an order that was charged (an open order's outcome may
///   still be settling), an order that was charged has exactly one, of its total, and what was refunded of it is at
///   most that total, and all of it for an order refunded or canceled; each refund the sandbox made is one the shop
///   recorded, of the same amount, and not as declined.
/// - Stock: what each product or variant holds reserved is what the open orders hold of it.
/// - Mail: each charged order with an email has its receipt in the outbox, once.
///
/// `ServeProcess` checks its shop when released, so a test that buys through a server cannot forget it; a test that
/// buys through other commands calls `expectShopInvariants`.
enum ShopInvariants {
    /// The statuses of an order whose charge went through (`OrderStatus.wasCharged`).
    static let charged = "'paid', 'shipped', 'delivered', 'canceled', 'refunded', 'partiallyRefunded'"

    /// Each broken rule of the shop in `dataDirectory`, in words; none when it holds no SQLite shop.
    static func violations(ofShopIn dataDirectory: String) throws -> [String] {
        let path = dataDirectory + "/storefront.sqlite"
        // A regular file only: a test's FIFO or link in its place is not a shop (and a FIFO would hang the read).
        var status = stat()
        guard lstat(path, &status) == 0, status.st_mode & S_IFMT == S_IFREG else { return [] }
        var configuration = Configuration()
        configuration.readonly = true
        let database = try DatabaseQueue(path: path, configuration: configuration)
        return try database.read { db in
            var found: [String] = []
            let total = "o.subtotal - o.discount_goods + o.shipping - o.discount_shipping + CASE o.tax_rule WHEN 'added' THEN o.tax ELSE 0 END"
            for row in try Row.fetchAll(
                db,
                sql: """
                    SELECT c.idempotency_key AS key, c.amount AS amount, o.number AS number, o.status AS status, \(total) AS total
                    FROM sandbox_charge c LEFT JOIN orders o ON o.idempotency_key = c.idempotency_key
                    WHERE c.outcome = 'succeeded' AND c.idempotency_key NOT LIKE 'refund:%'
                    """)
            {
                let key: String = row["key"]
                guard let number: String = row["number"] else {
                    found.append("a charge of \(row["amount"] as Int) under \(key) belongs to no order")
                    continue
                }
                let status: String = row["status"]
                if ["declined", "voided"].contains(status) { found.append("\(number) is \(status) but its charge went through") }
                if charged.contains("'\(status)'"), row["amount"] as Int != row["total"] as Int {
                    found.append("\(number) was charged \(row["amount"] as Int), its total is \(row["total"] as Int)")
                }
            }
            for row in try Row.fetchAll(
                db,
                sql: """
                    SELECT o.number AS number, o.status AS status, \(total) AS total,
                        (SELECT COUNT(*) FROM sandbox_charge c WHERE c.idempotency_key = o.idempotency_key AND c.outcome = 'succeeded') AS charges,
                        (SELECT COALESCE(SUM(r.amount), 0) FROM refund r WHERE r.order_number = o.number AND r.state = 'refunded') AS refunded
                    FROM orders o WHERE o.status IN (\(charged)) AND o.token_id LIKE 'tok_sandbox%'
                    """)
            {
                let (number, status): (String, String) = (row["number"], row["status"])
                let (total, refunded, charges): (Int, Int, Int) = (row["total"], row["refunded"], row["charges"])
                if charges != 1 { found.append("\(number) is \(status) with \(charges) charges that went through") }
                if refunded > total { found.append("\(number) refunded \(refunded) of \(total)") }
                if ["refunded", "canceled"].contains(status), refunded != total {
                    found.append("\(number) is \(status) with \(refunded) of \(total) refunded")
                }
            }
            // The sandbox keeps each refund it made as `refund:<id>`: each is a refund the shop recorded as made.
            for row in try Row.fetchAll(
                db,
                sql: """
                    SELECT c.idempotency_key AS key, c.amount AS amount, r.id AS id, r.state AS state, r.amount AS recorded
                    FROM sandbox_charge c LEFT JOIN refund r ON 'refund:' || r.id = c.idempotency_key
                    WHERE c.outcome = 'succeeded' AND c.idempotency_key LIKE 'refund:%'
                    """)
            {
                guard let id: String = row["id"] else {
                    found.append("a refund of \(row["amount"] as Int) under \(row["key"] as String) is no refund of the shop's")
                    continue
                }
                // A refund made and not yet recorded stays pending until the recovery settles it.
                if row["state"] as String == "declined" { found.append("\(id) is declined but the sandbox refunded it") }
                if row["amount"] as Int != row["recorded"] as Int {
                    found.append("\(id) gave back \(row["amount"] as Int), the shop recorded \(row["recorded"] as Int)")
                }
            }
            for row in try Row.fetchAll(
                db,
                sql: """
                    SELECT s.product_id AS key, s.reserved AS reserved, COALESCE((
                        SELECT SUM(l.quantity) FROM order_line l JOIN orders o ON o.number = l.order_number
                        WHERE o.status IN ('charging', 'unknown') AND COALESCE(l.variant_sku, l.product_id) = s.product_id), 0) AS held
                    FROM stock s
                    """)
            where row["reserved"] as Int != row["held"] as Int {
                found.append("\(row["key"] as String) holds \(row["reserved"] as Int) reserved, open orders \(row["held"] as Int)")
            }
            for row in try Row.fetchAll(
                db,
                sql: """
                    SELECT o.number AS number, (SELECT COUNT(*) FROM outbox x WHERE x.order_number = o.number AND x.kind = 'receipt') AS receipts
                    FROM orders o WHERE o.status IN (\(charged)) AND COALESCE(o.email, '') != ''
                    """)
            where row["receipts"] as Int != 1 {
                found.append("\(row["number"] as String) has \(row["receipts"] as Int) receipts in the outbox")
            }
            return found
        }
    }
}

/// Records an issue for each rule the shop in `dataDirectory` breaks (`ShopInvariants`); one the checks cannot read
/// (a test's damaged, locked or older database) is an issue too unless `reportingAnUnreadableShop` is false.
func expectShopInvariants(dataDirectory: String, reportingAnUnreadableShop: Bool = true, sourceLocation: SourceLocation = #_sourceLocation) {
    do {
        for violation in try ShopInvariants.violations(ofShopIn: dataDirectory) {
            Issue.record("the shop's books do not add up: \(violation)", sourceLocation: sourceLocation)
        }
    } catch {
        guard reportingAnUnreadableShop else { return }
        Issue.record("cannot read the shop in \(dataDirectory) to check its books: \(error)", sourceLocation: sourceLocation)
    }
}
