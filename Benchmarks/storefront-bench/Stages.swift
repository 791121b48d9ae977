// Where one key's time goes, stage by stage, from the key to the bytes written.
//
//     swift run -c release storefront-bench --stages [--samples N] [--gap-ms MS] [--curses] [--whole-layout] [--only KEY]
//
// With --gap-ms each key waits that long after the one before, as a typist's keys do: the caches
// have cooled, which is what a key costs in a real session (keys back to back measure it warm).
//
// The shop runs as `storefront run` composes it on SQLite (catalog, carts), and draws through the
// real terminal code into a file as xterm-256color. Per key: decode+reduce (the key queue and the
// view model, including any database call the reducer makes), layout (state to frame), prepare (the
// shop's own bytes worked out; with --curses, the changed cells written into curses' virtual screen)
// and send (one write; with --curses, doupdate). --whole-layout lays every frame out from nothing, where the
// program copies the rows that show the same from the frame before. Effects started by a key are settled outside the
// timed part. --only times one key (move, scroll or add), for a profiler. "floor B" is a bound no byte stream can
// beat for the same change (`floorBytes`).
import Foundation
import ShopModels
import ShopPorts
import StorageRows
import StorageSQLite
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
    var floor: [Double] = []
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
func runStages(
    database: SQLiteDatabase, catalog: any CatalogRepository, size: Size, workload: StageWorkload, samples: Int, gap: Duration, direct: Bool,
    reuse: Bool
) async throws -> StageSamples {
    let stack = TestStack(catalog: catalog, guestID: "bench-\(UUID().uuidString)")
    var dependencies = stack.dependencies
    dependencies.carts = SQLCartRepository(database: database)
    let program = Program(dependencies: dependencies, backend: SilentBackend(size: size))
    await program.settle()
    let curses = try OffscreenCurses(size: size, direct: direct)
    defer { curses.close() }
    curses.prepare(program.frame)
    curses.send()
    let clock = ContinuousClock()
    func ms(_ d: Duration) -> Double { Double(d.components.seconds) * 1e3 + Double(d.components.attoseconds) / 1e15 }
    var result = StageSamples()
    var drawn = program.frame
    for i in 0..<(samples + 20) {
        let (setup, key) = workload.key(i, size)
        for key in setup { program.enqueue(key) }
        await program.settle()
        // The untimed setup keys' frame, laid out as the program would have (and quickly, for a profiler's sake).
        let before = layout(program.state, size, charset: .unicode, previous: reuse ? drawn : nil)
        curses.prepare(before)
        curses.send()
        let bytesBefore = curses.bytesWritten
        if gap > .zero { try await Task.sleep(for: gap) }
        let t0 = clock.now
        program.enqueue(key)
        let t1 = clock.now
        // As `Program.draw` lays a frame out: rows that show the same are copied from the frame before.
        let frame = layout(program.state, size, charset: .unicode, previous: reuse ? before : nil)
        let t2 = clock.now
        curses.prepare(frame)
        let t3 = clock.now
        curses.send()
        let t4 = clock.now
        drawn = frame
        await program.settle()
        guard i >= 20 else { continue }  // the first keys warm caches and the allocator
        result.reduce.append(ms(t1 - t0))
        result.layout.append(ms(t2 - t1))
        result.cells.append(ms(t3 - t2))
        result.update.append(ms(t4 - t3))
        result.total.append(ms(t4 - t0))
        result.bytes.append(Double(curses.bytesWritten - bytesBefore))
        // A terminal can move a band of rows for 3 bytes or more (IL, DL, or a scroll region): the floor is the
        // lower of drawing the rows and moving the band that saves the most.
        var floor = floorBytes(from: before, to: frame, pen: curses.pen, sgr: curses.cheapestSGR)
        if let band = frame.scrollBand(from: before) {
            var moved = before
            moved.scroll(band.rows, by: band.offset)
            floor = min(floor, 3 + floorBytes(from: moved, to: frame, pen: curses.pen, sgr: curses.cheapestSGR))
        }
        result.floor.append(Double(floor))
    }
    return result
}

func median(_ values: [Double]) -> Double { percentile(values.sorted(), 0.5) }

@MainActor
func stageBenchmark(samples: Int, gap: Duration, direct: Bool, reuse: Bool, only: String?) async throws {
    print(
        direct ? "Output: the shop's own bytes (prepare = encode, send = one write)" : "Output: curses (prepare = cells into curses, send = doupdate)"
    )
    print("| catalog | size | key | decode+reduce ms | layout ms | prepare ms | send ms | total med / p95 ms | bytes/key | floor B | ratio |")
    print("|---:|---|---|---:|---:|---:|---:|---:|---:|---:|---:|")
    for count in [100, 100_000] {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("storefront-stages-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let database = try SQLiteDatabase.open(directory: directory)
        let data = try Fixtures.catalogJSON(Fixtures.generatedCatalog(count: count))
        let catalog = try SQLiteCatalogImport.open(database: database, catalogData: data, source: "bench")
        for size in [Size(columns: 80, rows: 24), Size(columns: 200, rows: 60)] {
            for workload in stageWorkloads where only == nil || workload.name == only {
                let s = try await runStages(
                    database: database, catalog: catalog, size: size, workload: workload, samples: samples, gap: gap, direct: direct, reuse: reuse)
                print(
                    String(
                        format: "| %d | %@ | %@ | %.3f | %.3f | %.3f | %.3f | %.3f / %.3f | %.0f | %.0f | %.2fx |",
                        count, size.description, workload.name, median(s.reduce), median(s.layout), median(s.cells), median(s.update),
                        median(s.total), percentile(s.total.sorted(), 0.95), median(s.bytes), median(s.floor),
                        median(s.bytes) / max(1, median(s.floor))))
            }
        }
    }
}

/// A bound under every byte stream that turns `old` into `new` on xterm-256color, whatever it knows of the
/// cursor and pen:
/// - each changed cell's text, though a run's blanks may instead be erased, at 3 bytes or more;
/// - at least 1 byte to reach each run of changes after the first (a tab, a line feed or one reprinted cell);
/// - for every pen the changed non-blank cells use, the cheapest SGR into it from any other pen, except for
///   the dearest of them, which the terminal may be in already.
func floorBytes(from old: Frame, to new: Frame, pen: (PackedCell) -> Int, sgr: (PackedCell) -> Int) -> Int {
    let columns = new.size.columns
    var total = 0
    var runs = 0
    var pens: [Int: Int] = [:]
    for row in 0..<new.size.rows where !new.row(row, matches: old) {
        var column = 0
        while column < columns {
            let index = row * columns + column
            if new.packed[index].isContinuation || new.cell(at: index, matches: old) {
                column += 1
                continue
            }
            // A run of changed cells: its text, its blanks at no more than an erase's 3 bytes.
            runs += 1
            var textBytes = 0
            var blanks = 0
            while column < columns, !new.cell(at: row * columns + column, matches: old) || new.packed[row * columns + column].isContinuation {
                let cell = new.packed[row * columns + column]
                column += 1
                if cell.isContinuation { continue }
                if cell.code == 0x20 && !cell.isCluster {
                    blanks += 1
                    continue
                }
                textBytes += new.text(of: cell).utf8.count
                if pens[pen(cell)] == nil { pens[pen(cell)] = sgr(cell) }
            }
            total += textBytes + min(blanks, 3)
        }
    }
    return total + max(0, runs - 1) + pens.values.reduce(0, +) - (pens.values.max() ?? 0)
}
