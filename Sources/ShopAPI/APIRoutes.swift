import Foundation

/// The document's paths and the methods each takes, to tell a wrong method (405) from a wrong path (404).
enum APIRoutes {
    private static let table: [(segments: [Substring], operations: [String: String])] = {
        guard let document = try? JSONSerialization.jsonObject(with: Data(ShopAPIService.documentJSON)) as? [String: Any],
            let paths = document["paths"] as? [String: [String: Any]]
        else { return [] }
        return paths.map { path, operations in
            let named = operations.reduce(into: [String: String]()) { named, operation in
                named[operation.key.uppercased()] = (operation.value as? [String: Any])?["operationId"] as? String ?? operation.key
            }
            return (path.split(separator: "/"), named)
        }
    }()

    /// The document's path `path` falls under: a `{parameter}` segment matches any one segment, and of several, the
    /// one with the most fixed segments wins (`/v1/orders/mine` over `/v1/orders/{number}`).
    private static func route(at path: String) -> [String: String]? {
        let segments = path.split(separator: "/")
        return
            table
            .filter { route in route.segments.count == segments.count && zip(route.segments, segments).allSatisfy { $0.hasPrefix("{") || $0 == $1 } }
            .max { $0.segments.filter { !$0.hasPrefix("{") }.count < $1.segments.filter { !$0.hasPrefix("{") }.count }?
            .operations
    }

    /// The methods the document lists for `path`; none when no path matches.
    static func methods(at path: String) -> [String] { route(at: path)?.keys.sorted() ?? [] }

    /// The operation's id for the metrics' label: one of the document's, or "other" for anything it does not list.
    static func operation(_ method: String, at path: String) -> String { route(at: path)?[method] ?? "other" }
}
