import Foundation
// Measures what one keystroke costs inside the process (view model + layout), by catalog size.
//
//     swift run -c release storefront-bench [--keys N]
//     swift run -c release storefront-bench --stages [--samples N] [--gap-ms MS] [--curses] [--only KEY]   # per-stage breakdown, see Stages.swift
//
// Each case drives the real view model through the `Program` loop with the sandbox, and times
// every key from `press` until its frame is laid out. Results go to stdout as a markdown table.
import ShopBundledCatalog
import ShopModels
import ShopPorts
import ShopSandbox
import StorageSQLite
import StorefrontCore
import StorefrontTesting
import StorefrontUI

let arguments = CommandLine.arguments
if arguments.contains("--stages") {
    try await stageBenchmark(
        samples: arguments.firstIndex(of: "--samples").flatMap { Int(arguments[$0 + 1]) } ?? 400,
        gap: .milliseconds(arguments.firstIndex(of: "--gap-ms").flatMap { Int(arguments[$0 + 1]) } ?? 0),
        direct: !arguments.contains("--curses"), reuse: !arguments.contains("--whole-layout"),
        only: arguments.firstIndex(of: "--only").map { arguments[$0 + 1] })
    exit(0)
}
let keyCount = arguments.firstIndex(of: "--keys").flatMap { Int(arguments[$0 + 1]) } ?? 2_000

struct Workload {
    var name: String
    var keys: [Key]
}

let typeQuery: [Key] = [Key.character("/")] + "oak mug".map { Key.character($0) }
let clearQuery: [Key] = Array(repeating: Key.backspace, count: 7) + [.escape]
// Every workload presses the same keys on every catalog, so only the catalog size differs.
// Down 23 then up 23 moves through the first 24 products and scrolls the 20-row window both ways.
let workloads = [
    Workload(name: "move+scroll (↓×23, ↑×23)", keys: (0..<keyCount).map { $0 % 46 < 23 ? .down : .up }),
    Workload(name: "jump (End, Home)", keys: (0..<keyCount).map { $0 % 2 == 0 ? .end : .home }),
    Workload(name: "search (type \"oak mug\", clear)", keys: Array(repeating: typeQuery + clearQuery, count: max(1, keyCount / 16)).flatMap { $0 }),
]

func percentile(_ sorted: [Double], _ p: Double) -> Double {
    sorted[min(sorted.count - 1, Int((Double(sorted.count) * p).rounded(.up)) - 1)]
}

/// The catalog of `count` products (24 is the bundled one), imported into SQLite in a temporary directory as the shop
/// serves it. (An in-memory catalog was measured beside it until 2026-11-29: a test double, with a search of its own.)
func catalog(count: Int) throws -> any CatalogRepository {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("storefront-bench-\(UUID().uuidString)")
    let database = try SQLiteDatabase.open(directory: directory)
    // The bundled catalog names its pictures, which come with it: imported as the shop imports it.
    if count == 24 { return try Fixtures.importBundledCatalog(into: database) }
    let data = try Fixtures.catalogJSON(Fixtures.generatedCatalog(count: count))
    return try SQLiteCatalogImport.open(database: database, catalogData: data, source: "bench")
}

@MainActor
func run(catalog: any CatalogRepository, size: Size, workload: Workload) async -> (
    median: Double, p95: Double, max: Double, largestPage: Int, frames: Int
) {
    let spy = CatalogRepositorySpy(wrapping: catalog)
    var frames = 0
    let driver = Program(dependencies: TestStack(catalog: spy).dependencies, backend: HeadlessBackend(size: size) { _, _ in frames += 1 })
    let clock = ContinuousClock()
    var samples: [Double] = []
    samples.reserveCapacity(workload.keys.count)
    for key in workload.keys {
        let start = clock.now
        await driver.press(key)
        let elapsed = start.duration(to: clock.now)
        samples.append(Double(elapsed.components.attoseconds) / 1e12 + Double(elapsed.components.seconds) * 1e6)
    }
    samples.sort()
    return (percentile(samples, 0.5), percentile(samples, 0.95), samples.last ?? 0, spy.largestLimit, frames)
}

print("| catalog | backing | size | workload | keys | median µs/key | p95 µs/key | max µs | largest page read |")
print("|---:|---|---|---|---:|---:|---:|---:|---:|")
for backing in ["sqlite"] {
    for catalogSize in [24, 100_000] {
        let repository = try catalog(count: catalogSize)
        for size in [Size(columns: 80, rows: 24), Size(columns: 200, rows: 60)] {
            for workload in workloads {
                let r = await run(catalog: repository, size: size, workload: workload)
                print(
                    String(
                        format: "| %d | %@ | %@ | %@ | %d | %.1f | %.1f | %.0f | %d |",
                        catalogSize, backing, size.description, workload.name, workload.keys.count, r.median, r.p95, r.max, r.largestPage))
            }
        }
    }
}
