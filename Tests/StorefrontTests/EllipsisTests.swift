import StorefrontCore
import Testing

@testable import StorefrontUI

/// A text cut where it already had an ellipsis shows one, not two ("SHA256:X+MyQ0G……" was seen on the header).
@Suite("One ellipsis")
struct EllipsisTests {
    @Test(arguments: [15, 16])
    func aTextCutJustAfterItsOwnEllipsisKeepsOne(width: Int) {
        let painter = Painter(size: Size(columns: 40, rows: 1), charset: .unicode)
        let label = "SHA256:X+MyQ0G…abcd"
        let cut = painter.truncated(label, to: width)
        #expect(!cut.contains("……"), "\(cut)")
        #expect(cut.hasSuffix("…") && cut.count <= width, "\(cut)")
    }
}
