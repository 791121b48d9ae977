import ShopModels
import ShopPorts

/// How `storefront stock` prints stock levels (docs/stock.md).
public enum StockReport {
    /// The version of the `--json` documents.
    public static let jsonVersion = 1

    /// `{"version": 1, "stock": [...]}`.
    public static func json(_ levels: [StockLevel]) throws -> String {
        let document: [String: Any] = [
            "version": jsonVersion,
            "stock": levels.map {
                ["productId": $0.productID.rawValue, "name": $0.name, "onHand": $0.onHand, "reserved": $0.reserved, "sold": $0.sold] as [String: Any]
            },
        ]
        return try jsonText(document)
    }

    public static func table(_ levels: [StockLevel]) -> String {
        guard !levels.isEmpty else { return "No products." }
        return TextTable.render(
            header: ["Product", "Name", "On hand", "Reserved", "Sold"],
            rows: levels.map { [$0.productID.rawValue, $0.name, String($0.onHand), String($0.reserved), String($0.sold)] },
            rightAligned: [2, 3, 4]
        )
    }
}
