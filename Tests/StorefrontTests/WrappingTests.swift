import StorefrontCore
import Testing

@testable import StorefrontUI

/// Text wrapped to a width: plain ASCII is read as bytes, anything else by characters, and both wrap alike.
@Suite("Wrapping")
struct WrappingTests {
    private let painter = Painter(size: Size(columns: 40, rows: 1), charset: .unicode)

    @Test func wordsFillEachLineAndParagraphsAndLongWordsKeepTheirPlace() {
        #expect(painter.wrapped("one two three four", width: 9) == ["one two", "three", "four"])
        #expect(painter.wrapped("exact fit", width: 9) == ["exact fit"])
        #expect(painter.wrapped("  spaced   out  ", width: 20) == ["spaced out"])
        #expect(painter.wrapped("first\n\nthird", width: 20) == ["first", "", "third"])
        #expect(painter.wrapped("a extraordinarily b", width: 8) == ["a", "extraor…", "b"])
        #expect(painter.wrapped("", width: 5) == [""])
        #expect(painter.wrapped("anything", width: 0) == [])
    }

    /// One `e` made `é` (one column, two bytes) anywhere takes the characters' path: the lines break in the same places.
    @Test func plainASCIIWrapsAsTheSameTextWithAnAccentDoes() {
        let text = "Lay-flat binding for sketching state machines\nand box diagrams by hand, one page at a time."
        for width in [1, 4, 7, 12, 20, 33, 80] {
            let plain = painter.wrapped(text, width: width)
            for index in text.indices where text[index] == "e" {
                let accented = text.replacingCharacters(in: index...index, with: "é")
                let lines = painter.wrapped(accented, width: width).map { $0.replacingOccurrences(of: "é", with: "e") }
                #expect(lines == plain, "width \(width), é at \(text.distance(from: text.startIndex, to: index))")
            }
        }
    }
}
