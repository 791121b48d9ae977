import LiveObjects
import ShopModels
import ShopPorts
import SnapshotTesting
import StorefrontCore
import StorefrontTesting
import StorefrontUI
import Synchronization
import Testing

/// The product page's picture in a 256-colour terminal: a mosaic libchafa draws from the bundled catalog's picture,
/// the chosen variant's where it has its own, and the art where the terminal shows no colour.
@MainActor
@Suite("Product pictures")
struct ProductPictureTests {
    @Test(
        "the mug's page at 80x24, 120x34 and 200x60",
        arguments: [Size(columns: 80, rows: 24), Size(columns: 120, rows: 34), Size(columns: 200, rows: 60)])
    func mugPage(size: Size) async throws {
        let driver = await ScriptedDriver(size: size, pictures: .mosaic)
        try await driver.press("down,enter")
        #expect(driver.state.productDetail?.product.id == "mug-stdout")
        let frame = driver.program.frame
        let slot = try #require(frame.pictureSlots.first)
        #expect(frame.pictureSlots.count == 1)
        // Every cell of the slot is the picture's, in its own colours; the cup's white is in it.
        let cells = (slot.row..<(slot.row + slot.rows)).flatMap { row in
            (slot.column..<(slot.column + slot.columns)).map { frame.packed[row * size.columns + $0] }
        }
        #expect(cells.allSatisfy { $0.pictureColors != nil })
        #expect(
            cells.contains {
                [231, 255, 254, 253].contains($0.pictureColors!.foreground) || [231, 255, 254, 253].contains($0.pictureColors!.background)
            })
        assertSnapshot(of: driver.frameText, as: .lines, named: "mug-\(size)")
    }

    @Test func theChosenVariantsPictureReplacesTheProducts() async throws {
        let driver = await ScriptedDriver(size: Size(columns: 120, rows: 34), pictures: .mosaic)
        try await driver.press("j,j,j,j,j,j,j,j,j,enter")
        let product = try #require(driver.state.productDetail?.product)
        #expect(product.id == "coffee-beans")
        let small = try #require(driver.program.frame.pictureSlots.first?.digest)
        #expect(small == product.pictures.first?.digest)
        // Weight: 1 kg, which has a picture of its own.
        try await driver.press("down,right")
        #expect(driver.state.productDetail?.choice.last == "1 kg")
        let large = try #require(driver.program.frame.pictureSlots.first?.digest)
        #expect(large != small)
        #expect(large == driver.state.productDetail?.chosenVariant?.pictures.first?.digest)
    }

    @Test func aTerminalWithoutColourShowsTheArt() async throws {
        let driver = await ScriptedDriver(size: Size(columns: 120, rows: 34), pictures: .art)
        try await driver.press("down,enter")
        #expect(driver.program.frame.pictureSlots.isEmpty)
        #expect(driver.frameText.contains("stdout"))
        let ascii = await ScriptedDriver(size: Size(columns: 120, rows: 34), charset: .ascii, pictures: .mosaic)
        try await ascii.press("down,enter")
        #expect(ascii.program.frame.pictureSlots.isEmpty, "an ASCII terminal draws no blocks")
    }
}

/// The list's preview pane shows the selected product's picture, and a move never waits for one.
@MainActor
@Suite("Product pictures in the list")
struct ProductListPictureTests {
    /// Holds every picture until let go, then draws each as a block of one colour.
    final class HeldPictures: PictureMosaics {
        let gate = AsyncGate()
        /// The digests asked for, in order.
        let asked = Mutex<[String]>([])

        func mosaic(digest: String, columns: Int, rows: Int) async -> PictureMosaic? {
            asked.withLock { $0.append(digest) }
            await gate.wait()
            return PictureMosaic(
                columns: columns, rows: rows,
                cells: Array(repeating: MosaicCell(symbol: 0x2588, foreground: 196, background: 16), count: columns * rows))
        }
    }

    @Test func theSelectedProductsPictureIsInThePreviewAndAMoveDrawsAtOnce() async throws {
        let pictures = HeldPictures()
        var dependencies = TestStack().dependencies
        dependencies.pictures = pictures
        let driver = await ScriptedDriver(dependencies: dependencies, size: Size(columns: 200, rows: 60), pictures: .mosaic, settling: false)
        await driver.program.viewModel.settled()
        let first = try #require(driver.renderer.frames.last?.pictureSlots.first)
        // The shown picture and three ahead are at the gate: their tasks run in no set order.
        await pictures.gate.waitForWaiters(4)
        // The next products' pictures are asked for ahead, beside the shown one.
        let rows = driver.state.productList.rows
        let ahead = [1, 2, 3].compactMap { rows[$0].pictures.first?.digest }
        let asked = Set(pictures.asked.withLock { $0 })
        #expect(asked.contains(first.digest))
        #expect(Set(ahead).isSubset(of: asked), "the neighbours' pictures are drawn ahead")
        // Down: the next product's frame is drawn while its picture is still held, its slot blank.
        await driver.press(.down, settle: false)
        await driver.program.viewModel.settled()
        let moved = try #require(driver.renderer.frames.last)
        let slot = try #require(moved.pictureSlots.first)
        #expect(slot.digest != first.digest)
        #expect(slot.digest == driver.state.productList.selectedProduct?.pictures.first?.digest)
        #expect(moved.packed[slot.row * 200 + slot.column].pictureColors == nil, "blank until the picture comes")
        await pictures.gate.open()
        await driver.settle()
        let drawn = try #require(driver.renderer.frames.last)
        #expect(drawn.packed[slot.row * 200 + slot.column].pictureColors! == (196, 16))
        assertSnapshot(of: driver.frameText, as: .lines, named: "list-200x60")
    }
}

extension ProductListPictureTests.HeldPictures: LiveObject {}

/// Holds its waiters until opened, then lets every one through.
actor AsyncGate {
    private var isOpen = false
    private var waiting: [CheckedContinuation<Void, Never>] = []
    /// Those waiting for `count` waiters.
    private var watchers: [(count: Int, continuation: CheckedContinuation<Void, Never>)] = []

    func wait() async {
        if isOpen { return }
        await withCheckedContinuation { continuation in
            waiting.append(continuation)
            let ready = watchers.filter { $0.count <= waiting.count }
            watchers.removeAll { $0.count <= waiting.count }
            for watcher in ready { watcher.continuation.resume() }
        }
    }

    /// Returns once `count` are waiting at the gate.
    func waitForWaiters(_ count: Int) async {
        if waiting.count >= count { return }
        await withCheckedContinuation { watchers.append((count, $0)) }
    }

    func open() {
        isOpen = true
        for continuation in waiting { continuation.resume() }
        waiting = []
    }
}

extension AsyncGate: LiveObject {}
