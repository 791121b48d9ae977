import ShopModels
import Testing

@Suite("JSON parser")
struct JSONParserTests {
    private func parse(_ text: String) throws -> JSONValue { try JSONParser.parse(Array(text.utf8)) }

    @Test func wholeNumbersAndDecimalsStayApart() throws {
        #expect(
            try parse("[1, -5, 0, 12.5, 1e3, 12.0, 99999999999999999999]")
                == .array([
                    .integer(1), .integer(-5), .integer(0), .decimal("12.5"), .decimal("1e3"), .decimal("12.0"), .decimal("99999999999999999999"),
                ]))
    }

    @Test func stringsWithEscapesAndSurrogatePairs() throws {
        #expect(try parse(#""a\"b\\c\n\u00e9\ud83d\ude00 東京""#) == .string("a\"b\\c\né😀 東京"))
    }

    @Test func objectsAndLiterals() throws {
        #expect(try parse(#"{"a": true, "b": null, "c": [false]}"#) == .object(["a": .bool(true), "b": .null, "c": .array([.bool(false)])]))
    }

    @Test(
        "malformed input is located by line and column",
        arguments: [
            ("{\n  \"a\": 1,\n}", 3, 1, "expected a quoted key"),
            ("[1 2]", 1, 4, "expected ',' or ']' in an array"),
            ("\"abc", 1, 5, "unterminated string"),
            ("[01]", 1, 3, "expected ',' or ']' in an array"),
            ("\"\\ud800x\"", 1, 9, "unpaired surrogate in \\u escape"),
            ("{} x", 1, 4, "unexpected text after the end of the document"),
        ])
    func errors(text: String, line: Int, column: Int, message: String) {
        #expect(throws: JSONSyntaxError(line: line, column: column, message: message)) { try parse(text) }
    }
}
