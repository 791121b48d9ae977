import StorefrontUI
import Testing

/// `Frame.scrollBand(from:)`, which passes over an offset under which fewer than two changed rows moved, against a
/// plain reading of what it promises: of the runs of rows that show the old frame's rows moved by an offset, the one
/// holding the most changed rows, at least two, offsets tried in its order.
@Suite struct ScrollBandTests {
    /// A small seeded generator, so a failure names the frames that caused it.
    struct Seeded: RandomNumberGenerator {
        var state: UInt64
        mutating func next() -> UInt64 {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return state ^ (state >> 29)
        }
    }

    /// Rows from a few words, so rows often match other rows: as a list's rows do once it scrolls.
    static func frame(_ lines: [String], columns: Int) -> Frame {
        var frame = Frame(size: Size(columns: columns, rows: lines.count))
        for (row, line) in lines.enumerated() { frame.put(line, column: 0, row: row) }
        return frame
    }

    /// What `scrollBand` promises, read from the frames' text row by row with nothing passed over.
    static func expectedBand(_ new: [String], _ old: [String]) -> (rows: ClosedRange<Int>, offset: Int)? {
        var best: (rows: ClosedRange<Int>, offset: Int, gain: Int)?
        for offset in [-1, 1, -3, 3, -2, 2] {
            let candidates = (0..<new.count).filter { $0 - offset >= 0 && $0 - offset < old.count }
            var runs: [[Int]] = []
            for row in candidates where new[row] == old[row - offset] {
                if let last = runs.last?.last, last == row - 1 { runs[runs.count - 1].append(row) } else { runs.append([row]) }
            }
            for run in runs {
                let gain = run.filter { new[$0] != old[$0] }.count
                let band = min(run[0], run[0] - offset)...max(run[run.count - 1], run[run.count - 1] - offset)
                if gain >= 2, gain > best?.gain ?? 0 { best = (band, offset, gain) }
            }
        }
        return best.map { ($0.rows, $0.offset) }
    }

    @Test func theBandFoundIsTheOneThatGainsTheMostChangedRows() {
        var random = Seeded(state: 77)
        let words = ["", "a", "b", "c", "d"]
        var found = 0
        for _ in 0..<3_000 {
            let rows = Int.random(in: 1...14, using: &random)
            let old = (0..<rows).map { _ in words.randomElement(using: &random)! }
            var new = old
            // Half the frames are the old one scrolled within a band, then a row or two changed; the rest are random.
            if Bool.random(using: &random), rows > 2 {
                let offset = [-3, -2, -1, 1, 2, 3].randomElement(using: &random)!
                new = (0..<rows).map { row in old.indices.contains(row - offset) ? old[row - offset] : "" }
                for _ in 0..<Int.random(in: 0...2, using: &random) {
                    new[Int.random(in: 0..<rows, using: &random)] = words.randomElement(using: &random)!
                }
            } else {
                new = (0..<rows).map { _ in words.randomElement(using: &random)! }
            }
            let band = Self.frame(new, columns: 6).scrollBand(from: Self.frame(old, columns: 6))
            let expected = Self.expectedBand(new, old)
            #expect(band?.rows == expected?.rows && band?.offset == expected?.offset, "old \(old), new \(new)")
            if band != nil { found += 1 }
        }
        #expect(found > 300, "the frames scroll often enough to test the band: \(found) of 3,000")
    }
}
