/// A small expression, as operator arguments use: `x * 10`, `x > 2`, `acc + x`,
/// `a + "-" + b`, `x % 2 == 0 && x < 10`, `-x`, `(x + 1) * 2`.
///
/// Numbers (integer or decimal), strings in double quotes, `true`/`false`, names bound by the
/// operator (`x`, `acc`, input names), arithmetic `+ - * / %`, comparison `== != < <= > >=`,
/// `&& || !`. `+` joins when either side is a string.
public indirect enum SpecExpression: Equatable, Sendable, CustomStringConvertible {
    /// A constant.
    case literal(SpecValue)
    /// A name bound when the expression is evaluated (`x`, an input's name), with its column for errors.
    case name(String, column: Int)
    /// A prefix operator (`-x`, `!x`) applied to an expression.
    case unary(String, SpecExpression)
    /// An infix operator (`x * 10`, `a + b`, `x == "a"`) between two expressions.
    case binary(String, SpecExpression, SpecExpression)

    public var description: String {
        switch self {
        case .literal(let v): return v.literal
        case .name(let n, _): return n
        case .unary(let op, let e): return op + e.description
        case .binary(let op, let l, let r): return "\(l.wrapped) \(op) \(r.wrapped)"
        }
    }

    private var wrapped: String {
        if case .binary = self { return "(\(description))" }
        return description
    }

    /// The names the expression reads, with their columns.
    var names: [(String, Int)] {
        switch self {
        case .literal: return []
        case .name(let n, let c): return [(n, c)]
        case .unary(_, let e): return e.names
        case .binary(_, let l, let r): return l.names + r.names
        }
    }

    /// Evaluates with `env` binding the names.
    public func evaluate(_ env: [String: SpecValue]) throws -> SpecValue {
        switch self {
        case .literal(let v): return v
        case .name(let n, _):
            guard let v = env[n] else { throw EvaluationError("'\(n)' has no value here") }
            return v
        case .unary(let op, let e):
            let v = try e.evaluate(env)
            switch (op, v) {
            case ("-", .int(let i)): return .int(-i)
            case ("-", .double(let d)): return .double(-d)
            case ("!", .bool(let b)): return .bool(!b)
            default: throw EvaluationError("cannot apply \(op) to \(v.literal)")
            }
        case .binary(let op, let l, let r):
            if op == "&&" || op == "||" {
                guard case .bool(let a) = try l.evaluate(env) else { throw EvaluationError("\(op) needs booleans") }
                if op == "&&" && !a { return .bool(false) }
                if op == "||" && a { return .bool(true) }
                guard case .bool(let b) = try r.evaluate(env) else { throw EvaluationError("\(op) needs booleans") }
                return .bool(b)
            }
            return try Self.apply(op, try l.evaluate(env), try r.evaluate(env))
        }
    }

    static func apply(_ op: String, _ a: SpecValue, _ b: SpecValue) throws -> SpecValue {
        if a == .null || b == .null, op != "==", op != "!=" { throw EvaluationError("cannot apply \(op) to nil") }
        switch (op, a, b) {
        case ("+", .string, _), ("+", _, .string): return .string(a.description + b.description)
        case ("==", _, _): return .bool(equal(a, b))
        case ("!=", _, _): return .bool(!equal(a, b))
        default: break
        }
        switch (a, b) {
        case (.int(let x), .int(let y)):
            switch op {
            case "+": return .int(x &+ y)
            case "-": return .int(x &- y)
            case "*": return .int(x &* y)
            case "/":
                guard y != 0 else { throw EvaluationError("division by zero") }
                return .int(x / y)
            case "%":
                guard y != 0 else { throw EvaluationError("division by zero") }
                return .int(x % y)
            case "<": return .bool(x < y)
            case "<=": return .bool(x <= y)
            case ">": return .bool(x > y)
            case ">=": return .bool(x >= y)
            default: break
            }
        case (.int, .double), (.double, .int), (.double, .double):
            let x = a.number!
            let y = b.number!
            switch op {
            case "+": return .double(x + y)
            case "-": return .double(x - y)
            case "*": return .double(x * y)
            case "/": return .double(x / y)
            case "%": return .double(x.truncatingRemainder(dividingBy: y))
            case "<": return .bool(x < y)
            case "<=": return .bool(x <= y)
            case ">": return .bool(x > y)
            case ">=": return .bool(x >= y)
            default: break
            }
        case (.string(let x), .string(let y)):
            switch op {
            case "<": return .bool(x < y)
            case "<=": return .bool(x <= y)
            case ">": return .bool(x > y)
            case ">=": return .bool(x >= y)
            default: break
            }
        default: break
        }
        throw EvaluationError("cannot apply \(op) to \(a.literal) and \(b.literal)")
    }

    private static func equal(_ a: SpecValue, _ b: SpecValue) -> Bool {
        if let x = a.number, let y = b.number { return x == y }
        return a == b
    }
}

extension SpecValue {
    var number: Double? {
        switch self {
        case .int(let i): return Double(i)
        case .double(let d): return d
        default: return nil
        }
    }
}

/// An expression could not be evaluated for a value; the operator's stream fails with it.
public struct EvaluationError: Error, Equatable, Sendable, CustomStringConvertible {
    /// What went wrong, for the spec error.
    public var message: String
    /// An error saying `message`.
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}

/// Reads expressions and operator calls from one line of a spec; columns are 1-based
/// positions in that line.
struct ExpressionParser {
    private let chars: [Character]
    private var index: Int
    private let offset: Int

    /// Parses `text`, which starts at column `offset + 1` of its line.
    init(_ text: String, columnOffset offset: Int) {
        self.chars = Array(text)
        self.index = 0
        self.offset = offset
    }

    var column: Int { offset + index + 1 }

    mutating func atEnd() -> Bool {
        skip()
        return index >= chars.count
    }

    mutating func skip() {
        while index < chars.count, chars[index] == " " || chars[index] == "\t" { index += 1 }
    }

    func peekRaw() -> Character? { index < chars.count ? chars[index] : nil }
    mutating func advance() { index += 1 }

    mutating func peek() -> Character? {
        skip()
        return index < chars.count ? chars[index] : nil
    }

    mutating func expect(_ c: Character) throws(LineError) {
        guard peek() == c else { throw LineError(column: column, message: "expected '\(c)'" + found()) }
        index += 1
    }

    mutating func found() -> String {
        guard let c = peek() else { return ", found the end of the line" }
        return ", found '\(c)'"
    }

    mutating func identifier() -> String? {
        skip()
        guard index < chars.count, chars[index].isLetter || chars[index] == "_" else { return nil }
        let start = index
        while index < chars.count, chars[index].isLetter || chars[index].isNumber || chars[index] == "_" { index += 1 }
        return String(chars[start..<index])
    }

    /// Lookahead: `name:` (a labelled argument), without consuming.
    mutating func label() -> String? {
        let save = index
        if let name = identifier() {
            skip()
            if index < chars.count, chars[index] == ":" {
                index += 1
                return name
            }
        }
        index = save
        return nil
    }

    mutating func expression() throws(LineError) -> SpecExpression { try or() }

    private mutating func or() throws(LineError) -> SpecExpression {
        var left = try and()
        while match("||") { left = .binary("||", left, try and()) }
        return left
    }

    private mutating func and() throws(LineError) -> SpecExpression {
        var left = try comparison()
        while match("&&") { left = .binary("&&", left, try comparison()) }
        return left
    }

    private mutating func comparison() throws(LineError) -> SpecExpression {
        let left = try additive()
        for op in ["==", "!=", "<=", ">=", "<", ">"] where match(op) {
            return .binary(op, left, try additive())
        }
        return left
    }

    private mutating func additive() throws(LineError) -> SpecExpression {
        var left = try multiplicative()
        while true {
            if match("+") {
                left = .binary("+", left, try multiplicative())
            } else if match("-") {
                left = .binary("-", left, try multiplicative())
            } else {
                return left
            }
        }
    }

    private mutating func multiplicative() throws(LineError) -> SpecExpression {
        var left = try unary()
        while true {
            if match("*") {
                left = .binary("*", left, try unary())
            } else if match("/") {
                left = .binary("/", left, try unary())
            } else if match("%") {
                left = .binary("%", left, try unary())
            } else {
                return left
            }
        }
    }

    private mutating func unary() throws(LineError) -> SpecExpression {
        if match("-") { return .unary("-", try unary()) }
        if match("!") { return .unary("!", try unary()) }
        return try primary()
    }

    private mutating func primary() throws(LineError) -> SpecExpression {
        guard let c = peek() else { throw LineError(column: column, message: "expected an expression, found the end of the line") }
        if c == "(" {
            index += 1
            let inner = try expression()
            try expect(")")
            return inner
        }
        if c == "\"" { return .literal(.string(try string())) }
        if c.isNumber { return .literal(try number()) }
        let start = column
        if let name = identifier() {
            switch name {
            case "true": return .literal(.bool(true))
            case "false": return .literal(.bool(false))
            case "nil": return .literal(.null)
            default: return .name(name, column: start)
            }
        }
        throw LineError(column: column, message: "expected an expression, found '\(c)'")
    }

    mutating func string() throws(LineError) -> String {
        let start = column
        index += 1
        var text = ""
        while index < chars.count {
            let c = chars[index]
            index += 1
            if c == "\\", index < chars.count {
                text.append(chars[index])
                index += 1
            } else if c == "\"" {
                return text
            } else {
                text.append(c)
            }
        }
        throw LineError(column: start, message: "unterminated string: the closing \" is missing")
    }

    mutating func number() throws(LineError) -> SpecValue {
        let start = index
        while index < chars.count, chars[index].isNumber { index += 1 }
        var isDouble = false
        if index + 1 < chars.count, chars[index] == ".", chars[index + 1].isNumber {
            isDouble = true
            index += 1
            while index < chars.count, chars[index].isNumber { index += 1 }
        }
        let text = String(chars[start..<index])
        if isDouble, let d = Double(text) { return .double(d) }
        if let i = Int(text) { return .int(i) }
        throw LineError(column: offset + start + 1, message: "number '\(text)' is out of range")
    }

    /// A literal value: number (optionally negative), string, boolean, or a bare word
    /// (taken as a string).
    mutating func literalValue() throws(LineError) -> SpecValue {
        guard let c = peek() else { throw LineError(column: column, message: "expected a value, found the end of the line") }
        if c == "\"" { return .string(try string()) }
        if c == "-" || c.isNumber {
            var negative = false
            if c == "-" {
                negative = true
                index += 1
            }
            guard let d = peek(), d.isNumber else { throw LineError(column: column, message: "expected a number after '-'") }
            let value = try number()
            if negative {
                if case .int(let i) = value { return .int(-i) }
                if case .double(let x) = value { return .double(-x) }
            }
            return value
        }
        if let word = identifier() {
            if word == "true" { return .bool(true) }
            if word == "false" { return .bool(false) }
            if word == "nil" { return .null }
            return .string(word)
        }
        throw LineError(column: column, message: "expected a value, found '\(c)'")
    }

    private mutating func match(_ token: String) -> Bool {
        skip()
        let t = Array(token)
        guard index + t.count <= chars.count, Array(chars[index..<index + t.count]) == t else { return false }
        // Do not read the first character of a longer operator ("<" of "<=", "!" of "!=").
        if t.count == 1, index + 1 < chars.count, "=&|".contains(chars[index + 1]), "<>=!&|".contains(t[0]) { return false }
        index += t.count
        return true
    }
}
