/// A parsed diagram spec (`*.marble`); see `docs/spec-format.md`.
public struct DiagramSpec: Sendable {
    /// One timeline written in the spec.
    public struct Stream: Sendable {
        public enum Kind: String, Sendable { case cold, hot }
        public var name: String
        public var kind: Kind
        public var diagram: String
        /// Where the diagram starts: line and 1-based column.
        public var line: Int
        public var column: Int
    }

    /// The operator and its arguments.
    public struct Call: Sendable {
        public struct Argument: Sendable {
            public var label: String?
            public var expression: SpecExpression
            public var column: Int
        }
        public var name: String
        public var arguments: [Argument]
        public var line: Int
        public var column: Int
        /// The call as written.
        public var text: String
    }

    /// Per-spec drawing options.
    public struct Style: Sendable, Equatable {
        /// Pixels per frame.
        public var frameWidth: Double = 32
        /// Marble radius in pixels.
        public var radius: Double = 15
        /// `light` or `dark`; `nil` leaves it to the command line.
        public var theme: String?
        public init() {}
    }

    public var file: String
    public var title: String?
    public var inputs: [Stream] = []
    public var inners: [Stream] = []
    public var values: [String: SpecValue] = [:]
    public var call: Call?
    public var expected: Stream?
    public var actual: Stream?
    public var style = Style()
    /// `failed` for specs written by a failing test.
    public var status: String?
    /// Where a test-written spec came from (`File.swift:12`).
    public var source: String?
    /// The spec's lines, for error messages.
    public var lines: [String] = []

    /// Parses spec text; `file` names it in errors.
    public static func parse(_ text: String, file: String = "<spec>") throws(SpecError) -> DiagramSpec {
        var spec = DiagramSpec(file: file)
        spec.lines = text.split(separator: "\n", omittingEmptySubsequences: false).map {
            $0.hasSuffix("\r") ? String($0.dropLast()) : String($0)
        }
        var names: [String: Int] = [:]
        for (index, raw) in spec.lines.enumerated() {
            let lineNumber = index + 1
            let trimmed = raw.drop { $0 == " " || $0 == "\t" }
            if trimmed.isEmpty || trimmed.hasPrefix("//") { continue }
            func fail(_ column: Int, _ message: String) -> SpecError {
                SpecError(file: file, line: lineNumber, column: column, lineText: raw, message: message)
            }
            let indent = raw.count - trimmed.count
            guard let colon = trimmed.firstIndex(of: ":") else {
                throw fail(
                    indent + 1, "expected 'key: value' (keys: title, input, hot, cold, inner, values, operator, expected, actual, style)")
            }
            let head = trimmed[..<colon].split(separator: " ", omittingEmptySubsequences: true).map(String.init)
            let valueStart = indent + trimmed.distance(from: trimmed.startIndex, to: colon) + 1
            var value = String(trimmed[trimmed.index(after: colon)...])
            var valueColumn = valueStart + 1
            while value.first == " " || value.first == "\t" {
                value.removeFirst()
                valueColumn += 1
            }
            guard let key = head.first else { throw fail(indent + 1, "missing key before ':'") }
            let name = head.count > 1 ? head[1] : nil
            if head.count > 2 { throw fail(indent + 1, "too many words before ':' (write 'input NAME: diagram')") }
            func once<T>(_ existing: T?, _ what: String) throws(SpecError) {
                if existing != nil { throw fail(indent + 1, "a second '\(what)' line: a spec has one") }
            }
            func requireNoName() throws(SpecError) {
                if name != nil { throw fail(indent + 1 + key.count + 1, "'\(key)' takes no name") }
            }
            switch key {
            case "title":
                try requireNoName()
                try once(spec.title, "title")
                spec.title = value
            case "input", "cold", "hot", "inner":
                let streamName = name ?? (key == "inner" ? nil : (spec.inputs.isEmpty ? "source" : nil))
                guard let streamName else {
                    throw fail(
                        indent + 1,
                        key == "inner"
                            ? "an inner observable needs a name: 'inner x: --a|'"
                            : "every input after the first needs a name: 'input b: --x--|'")
                }
                guard streamName.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "_" }), streamName.first?.isLetter == true else {
                    throw fail(indent + 1 + key.count + 1, "'\(streamName)' is not a name (letters, digits and _)")
                }
                if let previous = names[streamName] {
                    throw fail(indent + 1 + key.count + 1, "'\(streamName)' is already defined on line \(previous)")
                }
                names[streamName] = lineNumber
                let stream = Stream(
                    name: streamName, kind: key == "hot" ? .hot : .cold, diagram: value, line: lineNumber, column: valueColumn)
                if key == "inner" { spec.inners.append(stream) } else { spec.inputs.append(stream) }
            case "values":
                try requireNoName()
                do throws(LineError) {
                    for (k, v) in try parseValues(value, column: valueColumn) {
                        spec.values[k] = v
                    }
                } catch {
                    throw fail(error.column, error.message)
                }
            case "operator":
                try requireNoName()
                try once(spec.call, "operator")
                do throws(LineError) {
                    spec.call = try parseCall(value, line: lineNumber, column: valueColumn)
                } catch {
                    throw fail(error.column, error.message)
                }
            case "expected", "actual":
                try requireNoName()
                let stream = Stream(name: key, kind: .cold, diagram: value, line: lineNumber, column: valueColumn)
                if key == "expected" {
                    try once(spec.expected, "expected")
                    spec.expected = stream
                } else {
                    try once(spec.actual, "actual")
                    spec.actual = stream
                }
            case "style":
                try requireNoName()
                do throws(LineError) {
                    spec.style = try parseStyle(value, column: valueColumn, into: spec.style)
                } catch {
                    throw fail(error.column, error.message)
                }
            case "status":
                try requireNoName()
                guard value == "passed" || value == "failed" else { throw fail(valueColumn, "status is 'passed' or 'failed'") }
                spec.status = value
            case "source":
                try requireNoName()
                spec.source = value
            default:
                throw fail(
                    indent + 1, "unknown key '\(key)' (keys: title, input, hot, cold, inner, values, operator, expected, actual, style)")
            }
        }
        if spec.inputs.isEmpty && spec.actual == nil && spec.call == nil {
            throw SpecError(
                file: file, line: max(spec.lines.count, 1), column: 1, lineText: spec.lines.last ?? "",
                message: "a spec needs at least one 'input' line, an 'operator' or an 'actual' line")
        }
        if spec.actual != nil && spec.call != nil, let call = spec.call {
            throw SpecError(
                file: file, line: call.line, column: 1, lineText: spec.lines[call.line - 1],
                message: "a spec has either an 'operator' (output computed) or an 'actual' line (output given), not both")
        }
        return spec
    }

    /// `a = 1, b = "two", c = 2.5, 'ten' = 10`
    static func parseValues(_ text: String, column: Int) throws(LineError) -> [(String, SpecValue)] {
        var parser = ExpressionParser(text, columnOffset: column - 1)
        var result: [(String, SpecValue)] = []
        while !parser.atEnd() {
            let keyColumn = parser.column
            var key: String
            if parser.peek() == "'" {
                key = ""
                _ = parser.consumeQuotedKey(&key)
                if key.isEmpty { throw LineError(column: keyColumn, message: "empty or unterminated quoted key") }
            } else if parser.peek() == "\"" {
                key = try parser.string()
            } else {
                key = parser.keyToken()
                if key.isEmpty { throw LineError(column: keyColumn, message: "expected a value key such as 'a'") }
            }
            guard parser.peek() == "=" else {
                throw LineError(column: parser.column, message: "expected '=' after the key '\(key)'" + parser.found())
            }
            try parser.expect("=")
            let value = try parser.literalValue()
            result.append((key, value))
            if parser.atEnd() { break }
            try parser.expect(",")
        }
        return result
    }

    /// `name` or `name(arg, label: arg)`
    static func parseCall(_ text: String, line: Int, column: Int) throws(LineError) -> Call {
        var parser = ExpressionParser(text, columnOffset: column - 1)
        let nameColumn = parser.column
        guard let name = parser.identifier() else {
            throw LineError(column: nameColumn, message: "expected an operator name such as map" + parser.found())
        }
        var arguments: [Call.Argument] = []
        if parser.peek() == "(" {
            try parser.expect("(")
            if parser.peek() != ")" {
                while true {
                    parser.skip()
                    let argColumn = parser.column
                    let label = parser.label()
                    let expression = try parser.expression()
                    arguments.append(.init(label: label, expression: expression, column: argColumn))
                    if parser.peek() == ")" { break }
                    if parser.peek() == nil {
                        throw LineError(column: parser.column, message: "expected ')' to close the arguments, found the end of the line")
                    }
                    try parser.expect(",")
                }
            }
            try parser.expect(")")
        }
        if !parser.atEnd() { throw LineError(column: parser.column, message: "unexpected text after the operator" + parser.found()) }
        return Call(name: name, arguments: arguments, line: line, column: nameColumn, text: text)
    }

    static func parseStyle(_ text: String, column: Int, into style: Style) throws(LineError) -> Style {
        var style = style
        for (key, value) in try parseValues(text, column: column) {
            switch (key, value) {
            case ("frame", let v) where v.number != nil:
                guard let n = v.number, (8...120).contains(n) else {
                    throw LineError(column: column, message: "frame is a width in pixels from 8 to 120")
                }
                style.frameWidth = n
            case ("radius", let v) where v.number != nil:
                guard let n = v.number, (4...40).contains(n) else {
                    throw LineError(column: column, message: "radius is from 4 to 40 pixels")
                }
                style.radius = n
            case ("theme", .string(let t)) where t == "light" || t == "dark":
                style.theme = t
            default:
                throw LineError(
                    column: column, message: "unknown style '\(key) = \(value.literal)' (frame = 32, radius = 15, theme = light|dark)")
            }
        }
        return style
    }
}

extension ExpressionParser {
    /// A bare value key: everything up to a space or '='.
    mutating func keyToken() -> String {
        skip()
        var key = ""
        while let c = peekRaw(), c != " ", c != "=", c != "," {
            key.append(c)
            advance()
        }
        return key
    }

    /// A `'quoted'` key.
    mutating func consumeQuotedKey(_ key: inout String) -> Bool {
        skip()
        advance()
        while let c = peekRaw() {
            advance()
            if c == "'" { return true }
            key.append(c)
        }
        key = ""
        return false
    }
}
