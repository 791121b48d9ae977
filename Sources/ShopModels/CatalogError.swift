/// One thing wrong with a catalog file, located by JSON path and, where known, product id.
public struct CatalogIssue: Hashable, Sendable, CustomStringConvertible {
    public var path: String
    public var productID: String?
    public var message: String

    public init(path: String, productID: String? = nil, message: String) {
        self.path = path
        self.productID = productID
        self.message = message
    }

    public var description: String {
        if let productID { return "\(path) (product \"\(productID)\"): \(message)" }
        return "\(path): \(message)"
    }
}

/// Every issue found in a catalog file; thrown by `CatalogLoader` so nothing half-valid is used.
public struct CatalogError: Error, Sendable, CustomStringConvertible {
    public var source: String
    public var issues: [CatalogIssue]

    public init(source: String, issues: [CatalogIssue]) {
        self.source = source
        self.issues = issues
    }

    public var description: String {
        "\(source): \(issues.count) problem\(issues.count == 1 ? "" : "s")\n"
            + issues.map { "  - \($0)" }.joined(separator: "\n")
    }
}
