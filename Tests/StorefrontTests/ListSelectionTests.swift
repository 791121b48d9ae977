import StorefrontCore
import Testing

/// The one selection and scroll-window arithmetic.
@Suite("List selection")
struct ListSelectionTests {
    @Test func clampingKeepsTheIndexInTheList() {
        #expect(ListSelection.clamped(-3, count: 5) == 0)
        #expect(ListSelection.clamped(9, count: 5) == 4)
        #expect(ListSelection.clamped(2, count: 5) == 2)
        #expect(ListSelection.clamped(2, count: 0) == 0, "an empty list selects 0")
    }

    @Test(
        "movement keys",
        arguments: [
            (Action.moveUp, 3, nil as Int?, 2), (.moveDown, 3, nil, 4), (.moveDown, 9, nil, 9), (.moveUp, 0, nil, 0),
            (.moveToTop, 5, nil, 0), (.moveToBottom, 0, nil, 9),
            (.pageUp, 5, nil, 0), (.pageDown, 5, nil, 9), (.pageUp, 5, 3, 2), (.pageDown, 5, 3, 8), (.pageDown, 8, 3, 9),
        ])
    func moved(action: Action, from index: Int, page: Int?, expected: Int) {
        #expect(ListMove(action).map { ListSelection.moved(index, by: $0, count: 10, page: page) } == expected)
    }

    @Test func aKeyThatDoesNotMoveIsNoMove() {
        for action in [Action.confirm, .back, .addToCart, .textInput("j"), .tick] {
            #expect(ListMove(action) == nil, "\(action)")
        }
    }

    @Test func theWindowScrollsOnlyAsFarAsNeeded() {
        #expect(ListSelection.windowStart(selected: 4, currentStart: 0, capacity: 5, total: 20) == 0)
        #expect(ListSelection.windowStart(selected: 5, currentStart: 0, capacity: 5, total: 20) == 1)
        #expect(ListSelection.windowStart(selected: 3, currentStart: 6, capacity: 5, total: 20) == 3)
        #expect(ListSelection.windowStart(selected: 19, currentStart: 0, capacity: 5, total: 20) == 15)
        #expect(ListSelection.windowStart(selected: 2, currentStart: 0, capacity: 10, total: 3) == 0, "a short list never scrolls")
    }
}
