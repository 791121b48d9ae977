import Foundation
import ShopMetrics
import Testing

/// The Grafana dashboard and the Prometheus alert rules in docs/monitoring/ name only metrics the shop exports, with
/// their kinds' suffixes, and the dashboard shows every one of them.
@Suite("Monitoring files")
struct MonitoringFilesTests {
    static let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../docs/monitoring").standardized

    /// Every `storefront_*` series named in `text`, as written.
    static func seriesNamed(in text: String) -> Set<String> {
        Set(text.matches(of: /storefront_[a-z_]+/).map { String($0.output) })
    }

    /// The metric a series belongs to: a histogram's `_bucket`, `_sum` and `_count` are its own; nil when the shop has none.
    static func metric(of series: String) -> ShopMetrics.Definition? {
        if let definition = ShopMetrics.definitions.first(where: { $0.name == series }) {
            return definition.kind == .histogram ? nil : definition
        }
        for suffix in ["_bucket", "_sum", "_count"] where series.hasSuffix(suffix) {
            let name = String(series.dropLast(suffix.count))
            if let definition = ShopMetrics.definitions.first(where: { $0.name == name && $0.kind == .histogram }) { return definition }
        }
        return nil
    }

    /// Each expression's `by (…)` and `{…}` labels, which must be labels the metric has (or `le`, a bucket's).
    static func labelsUsed(in expression: String) -> Set<String> {
        var labels = Set(
            expression.matches(of: /by \(([a-z_, ]+)\)/).flatMap { $0.output.1.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) } }
        )
        for selector in expression.matches(of: /storefront_[a-z_]+\{([^}]*)\}/) {
            labels.formUnion(selector.output.1.matches(of: /([a-z_]+)\s*(=|!=|=~|!~)/).map { String($0.output.1) })
        }
        return labels
    }

    @Test func theDashboardShowsEveryMetricAndNamesNoOther() throws {
        let data = try Data(contentsOf: Self.folder.appendingPathComponent("storefront-dashboard.json"))
        let dashboard = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        let panels = try #require(dashboard["panels"] as? [[String: Any]])
        let expressions = panels.flatMap { ($0["targets"] as? [[String: Any]] ?? []).compactMap { $0["expr"] as? String } }
        #expect(!expressions.isEmpty)
        var shown: Set<String> = []
        for expression in expressions {
            let named = Self.seriesNamed(in: expression)
            #expect(!named.isEmpty, "a panel that shows none of the shop's metrics: \(expression)")
            for series in named {
                let definition = Self.metric(of: series)
                #expect(definition != nil, "\(series) in \"\(expression)\" is not a metric the shop exports")
                if let definition {
                    shown.insert(definition.name)
                    let allowed = Set(definition.labels + ["le"])
                    #expect(Self.labelsUsed(in: expression).isSubset(of: allowed), "\(expression) uses a label \(definition.name) does not have")
                }
            }
        }
        #expect(
            shown == Set(ShopMetrics.definitions.map(\.name)), "not on the dashboard: \(Set(ShopMetrics.definitions.map(\.name)).subtracting(shown))")
    }

    @Test func theAlertRulesNameOnlyMetricsTheShopExports() throws {
        let rules = try String(contentsOf: Self.folder.appendingPathComponent("storefront-alerts.yml"), encoding: .utf8)
        let named = Self.seriesNamed(in: rules)
        #expect(named.count >= 8)
        for series in named {
            #expect(Self.metric(of: series) != nil, "\(series) is not a metric the shop exports")
        }
        #expect(rules.components(separatedBy: "- alert:").count - 1 == 11)
    }

    @Test func namesAndLabelsFollowPrometheusConventions() {
        for definition in ShopMetrics.definitions {
            #expect(definition.name.hasPrefix("storefront_"))
            #expect(definition.name.wholeMatch(of: /[a-z_]+/) != nil)
            #expect((definition.kind == .counter) == definition.name.hasSuffix("_total"), "\(definition.name)")
            if definition.kind == .histogram { #expect(definition.name.hasSuffix("_seconds"), "\(definition.name)") }
            #expect(!definition.labels.contains { ["customer", "email", "address", "order", "key", "ip"].contains($0) })
        }
    }
}
