// Where one key's time goes, stage by stage, from the key to the bytes curses writes.
//
//     swift run -c release storefront-bench --stages [--samples N] [--gap-ms MS]
//
// With --gap-ms each key waits that long after the one before, as a typist's keys do: the caches
// have cooled, which is what a key costs in a real session (keys back to back measure it warm).
//
// The shop runs as `storefront run` composes it on SQLite (catalog, carts), and draws through the
// real curses code into a file as xterm-256color. Per key: decode+reduce (the key queue and the
// view model, including any database call the reducer makes), layout (state to frame), cells (the
// changed cells written into curses' virtual screen) and doupdate (curses works out and writes the
// bytes). Effects started by a key are settled outside the timed part. "reference B" is what a careful
// xterm-256color encoder writes for the same change (TerminalNCurses' ReferenceUpdate).
import Foundation
import StoreClients
import StoreModels
import StoreSQLite
import StorefrontCore
import StorefrontTesting
import StorefrontUI
import TerminalNCurses

/// A backend that never draws: the stage benchmark lays out and draws itself, to time each part.
@MainActor
final class SilentBackend: TerminalBackend {
    let size: Size
    init(size: Size) { self.size = size }
    var charset: Charset { .unicode }
    var timing: FrameTiming { .perBurst { _ in } }
    func draw(_ frame: Frame, for state: StorefrontState) {}
}

struct StageSamples {
    var reduce: [Double] = []
    var layout: [Double] = []
    var cells: [Double] = []
    var update: [Double] = []
    var total: [Double] = []
    var bytes: [Double] = []
    var reference: [Double] = []
}

/// A workload: keys to time, each with untimed keys before it that set the scene.
struct StageWorkload: Sendable {
    var name: String
    /// The timed key for sample `i`, and the untimed keys pressed before it.
    var key: @Sendable (Int, Size) -> (setup: [Key], timed: Key)
}

let stageWorkloads = [
    // Walks down the visible rows and jumps back Home untimed, never scrolling the list.
    StageWorkload(name: "move") { i, size in
        let span = Layout.listRows(for: size) - 1
        return (i % span == 0 ? [.home] : [], .down)
    },
    // Every timed key scrolls the list by one row.
    StageWorkload(name: "scroll") { i, size in
        (i % 30 == 0 ? [.home] + Array(repeating: .down, count: Layout.listRows(for: size) - 1) : [], .down)
    },
    // Adds the selected product, ten of each, then moves on to the next untimed.
    StageWorkload(name: "add") { i, _ in
        (i > 0 && i % 10 == 0 ? [.down] : [], .character("a"))
    },
]

@MainActor
func runStages(database: StoreDatabase, catalog: any CatalogRepository, size: Size, workload: StageWorkload, samples: Int, gap: Duration) async throws -> StageSamples {
    let stack = TestStack(catalog: catalog, guestID: "bench-\(UUID().uuidString)")
    var dependencies = stack.dependencies
    dependencies.carts = SQLiteCartStore(database: database)
    let program = Program(dependencies: dependencies, backend: SilentBackend(size: size))
    await program.settle()
    let curses = try OffscreenCurses(size: size)
    defer { curses.close() }
    curses.writeChanges(program.frame)
    curses.update()
    let clock = ContinuousClock()
    func ms(_ d: Duration) -> Double { Double(d.components.seconds) * 1e3 + Double(d.components.attoseconds) / 1e15 }
    var result = StageSamples()
    for i in 0..<(samples + 20) {
        let (setup, key) = workload.key(i, size)
        for key in setup { program.enqueue(key) }
        await program.settle()
        let before = program.frame
        curses.writeChanges(before)
        curses.update()
        let bytesBefore = curses.bytesWritten
        if gap > .zero { try await Task.sleep(for: gap) }
        let t0 = clock.now
        program.enqueue(key)
        let t1 = clock.now
        let frame = program.frame
        let t2 = clock.now
        curses.writeChanges(frame)
        let t3 = clock.now
        curses.update()
        let t4 = clock.now
        await program.settle()
        guard i >= 20 else { continue }   // the first keys warm caches and the allocator
        result.reduce.append(ms(t1 - t0))
        result.layout.append(ms(t2 - t1))
        result.cells.append(ms(t3 - t2))
        result.update.append(ms(t4 - t3))
        result.total.append(ms(t4 - t0))
        result.bytes.append(Double(curses.bytesWritten - bytesBefore))
        result.reference.append(Double(curses.referenceBytes(from: before, to: frame)))
    }
    return result
}

func median(_ values: [Double]) -> Double { percentile(values.sorted(), 0.5) }

@MainActor
func stageBenchmark(samples: Int, gap: Duration) async throws {
    print("| catalog | size | key | decode+reduce ms | layout ms | cells ms | doupdate ms | total med / p95 ms | bytes/key | reference B | ratio |")
    print("|---:|---|---|---:|---:|---:|---:|---:|---:|---:|---:|")
    for count in [100, 100_000] {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("storefront-stages-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let database = try StoreDatabase.open(directory: directory)
        let data = try Fixtures.catalogJSON(Fixtures.generatedCatalog(count: count))
        let catalog = try SQLiteCatalogRepository.open(database: database, catalogData: data, source: "bench")
        for size in [Size(columns: 80, rows: 24), Size(columns: 200, rows: 60)] {
            for workload in stageWorkloads {
                let s = try await runStages(database: database, catalog: catalog, size: size, workload: workload, samples: samples, gap: gap)
                print(String(format: "| %d | %@ | %@ | %.3f | %.3f | %.3f | %.3f | %.3f / %.3f | %.0f | %.0f | %.2fx |",
                             count, size.description, workload.name, median(s.reduce), median(s.layout), median(s.cells), median(s.update),
                             median(s.total), percentile(s.total.sorted(), 0.95), median(s.bytes), median(s.reference),
                             median(s.bytes) / max(1, median(s.reference))))
            }
        }
    }
}
