import Foundation

/// A PO header's `plural=` expression: which of a message's forms a count takes, as gettext evaluates it.
///
/// The expressions are C: `n`, integers, `! * / % + - < <= > >= == != && || ?:` and parentheses.
public struct PluralRule: Sendable, Equatable {
    public let formCount: Int
    let expression: Expression
    public let source: String

    indirect enum Expression: Sendable, Equatable {
        case n
        case constant(Int)
        case not(Expression)
        case binary(String, Expression, Expression)
        case choice(Expression, Expression, Expression)
    }

    /// English's rule, for catalogs with no header: built, not parsed, so nothing can fail.
    public static let english = PluralRule(formCount: 2, expression: .binary("!=", .n, .constant(1)), source: "(n != 1)")

    private init(formCount: Int, expression: Expression, source: String) {
        self.formCount = formCount
        self.expression = expression
        self.source = source
    }

    /// Reads `nplurals=N; plural=EXPR;`, as a PO header's `Plural-Forms` holds it.
    public init(header: String) throws(CatalogError) {
        var count: Int?
        var expressionText: String?
        for part in header.split(separator: ";") {
            let pair = part.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
            guard pair.count == 2 else { continue }
            switch pair[0] {
            case "nplurals": count = Int(pair[1])
            case "plural": expressionText = pair[1]
            default: continue
            }
        }
        guard let count, (1...6).contains(count), let expressionText else {
            throw CatalogError(line: 0, problem: "Plural-Forms needs nplurals=1…6 and plural=…, not \(header)")
        }
        var parser = Parser(tokens: try Self.tokens(expressionText))
        let expression = try parser.choice()
        guard parser.position == parser.tokens.count else {
            throw CatalogError(line: 0, problem: "Plural-Forms' plural= has more after its end: \(expressionText)")
        }
        self.formCount = count
        self.expression = expression
        self.source = expressionText
    }

    /// The index of the form `n` takes, kept within the forms there are.
    public func form(for n: Int) -> Int {
        // gettext evaluates on unsigned long; a negative count takes its magnitude's form.
        let value = Self.evaluate(expression, n: n.magnitude > UInt(Int.max) ? Int.max : abs(n))
        return (0..<formCount).contains(value) ? value : 0
    }

    static func evaluate(_ e: Expression, n: Int) -> Int {
        switch e {
        case .n: return n
        case .constant(let c): return c
        case .not(let inner): return evaluate(inner, n: n) == 0 ? 1 : 0
        case .choice(let condition, let yes, let no): return evaluate(condition, n: n) != 0 ? evaluate(yes, n: n) : evaluate(no, n: n)
        case .binary(let op, let l, let r):
            let a = evaluate(l, n: n)
            // && and || short-circuit, as in C.
            if op == "&&" { return a != 0 && evaluate(r, n: n) != 0 ? 1 : 0 }
            if op == "||" { return a != 0 || evaluate(r, n: n) != 0 ? 1 : 0 }
            let b = evaluate(r, n: n)
            switch op {
            case "*": return a.multipliedReportingOverflow(by: b).partialValue
            case "/": return b == 0 ? 0 : a / b
            case "%": return b == 0 ? 0 : a % b
            case "+": return a.addingReportingOverflow(b).partialValue
            case "-": return a.subtractingReportingOverflow(b).partialValue
            case "<": return a < b ? 1 : 0
            case "<=": return a <= b ? 1 : 0
            case ">": return a > b ? 1 : 0
            case ">=": return a >= b ? 1 : 0
            case "==": return a == b ? 1 : 0
            default: return a != b ? 1 : 0
            }
        }
    }

    static func tokens(_ text: String) throws(CatalogError) -> [String] {
        var tokens: [String] = []
        let characters = Array(text)
        var i = 0
        while i < characters.count {
            let c = characters[i]
            if c == " " || c == "\t" {
                i += 1
            } else if c.isNumber {
                var j = i
                while j < characters.count, characters[j].isNumber { j += 1 }
                tokens.append(String(characters[i..<j]))
                i = j
            } else if i + 1 < characters.count, ["&&", "||", "<=", ">=", "==", "!="].contains(String(characters[i...(i + 1)])) {
                tokens.append(String(characters[i...(i + 1)]))
                i += 2
            } else if "n()?:!*/%+-<>".contains(c) {
                tokens.append(String(c))
                i += 1
            } else {
                throw CatalogError(line: 0, problem: "Plural-Forms' plural= cannot hold \"\(c)\": \(text)")
            }
        }
        return tokens
    }

    /// Recursive descent over C's precedence, lowest first.
    struct Parser {
        let tokens: [String]
        var position = 0

        var next: String? { position < tokens.count ? tokens[position] : nil }

        mutating func take(_ token: String) -> Bool {
            guard next == token else { return false }
            position += 1
            return true
        }

        mutating func choice() throws(CatalogError) -> Expression {
            let condition = try binary(level: 0)
            guard take("?") else { return condition }
            let yes = try choice()
            guard take(":") else { throw CatalogError(line: 0, problem: "Plural-Forms' plural= has a ? without its :") }
            return .choice(condition, yes, try choice())
        }

        static let levels: [[String]] = [["||"], ["&&"], ["==", "!="], ["<", "<=", ">", ">="], ["+", "-"], ["*", "/", "%"]]

        mutating func binary(level: Int) throws(CatalogError) -> Expression {
            guard level < Self.levels.count else { return try unary() }
            var left = try binary(level: level + 1)
            while let op = next, Self.levels[level].contains(op) {
                position += 1
                left = .binary(op, left, try binary(level: level + 1))
            }
            return left
        }

        mutating func unary() throws(CatalogError) -> Expression {
            if take("!") { return .not(try unary()) }
            if take("(") {
                let inner = try choice()
                guard take(")") else { throw CatalogError(line: 0, problem: "Plural-Forms' plural= has a ( without its )") }
                return inner
            }
            if take("n") { return .n }
            if let token = next, let value = Int(token) {
                position += 1
                return .constant(value)
            }
            throw CatalogError(line: 0, problem: "Plural-Forms' plural= ends or breaks at \(next.map { "\"\($0)\"" } ?? "its end")")
        }
    }
}
