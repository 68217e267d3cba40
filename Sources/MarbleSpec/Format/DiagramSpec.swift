/// A parsed diagram spec (`*.marble`); see `docs/spec-format.md`.
public struct DiagramSpec: Sendable {
    /// One timeline written in the spec.
    public struct Stream: Sendable {
        /// Cold (replayed per subscription) or hot (shared, from `^`).
        public enum Kind: String, Sendable {
            /// `input:` and `cold:` lines, and inner observables.
            case cold
            /// `hot:` lines.
            case hot
        }
        /// The name the operator's expressions use (`source` for an unnamed first input).
        public var name: String
        /// Hot or cold.
        public var kind: Kind
        /// The marble diagram as written.
        public var diagram: String
        /// The line the diagram is on.
        public var line: Int
        /// The 1-based column where the diagram starts.
        public var column: Int
    }

    /// The operator and its arguments.
    public struct Call: Sendable {
        /// One argument of the operator call.
        public struct Argument: Sendable {
            /// The label, for `name: value` arguments.
            public var label: String?
            /// The argument's expression.
            public var expression: SpecExpression
            /// Where the argument starts (1-based), for errors.
            public var column: Int
        }
        /// The operator's name in the registry.
        public var name: String
        /// The arguments, in order.
        public var arguments: [Argument]
        /// The `operator:` line.
        public var line: Int
        /// Where the operator's name starts (1-based).
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
        /// Whether long idle stretches are drawn short (with a break mark and their duration)
        /// when the diagram would be wider than ``maxWidth``; `style: gaps = full` draws every
        /// frame.
        public var compressesGaps = true
        /// The widest a diagram is drawn with long idle stretches squeezed: 1,200 points
        /// (2,400 pixels at the usual 2× scale).
        public static let maxWidth = 1_200.0
        /// The default style: 32-point frames, 15-point marbles, the command line's theme.
        public init() {}
    }

    /// The spec's file, as named in errors.
    public var file: String
    /// The `title:` line, if any.
    public var title: String?
    /// The `input`, `cold` and `hot` timelines, in order.
    public var inputs: [Stream] = []
    /// The `inner NAME:` timelines that higher-order inputs refer to.
    public var inners: [Stream] = []
    /// The `values:` entries by key.
    public var values: [String: SpecValue] = [:]
    /// The `operator:` line, parsed.
    public var call: Call?
    /// The `expected:` line: what the operator should produce.
    public var expected: Stream?
    /// The `actual:` line: an output given instead of computed.
    public var actual: Stream?
    /// The `subscriber NAME:` lines, in order: each subscribes to the operator's output at its
    /// `^` (and unsubscribes at its `!`), and gets a timeline of its own. None: one subscriber
    /// from frame 0, drawn as `output`.
    public var subscribers: [Stream] = []
    /// The `expected NAME:` lines: what a named subscriber should get.
    public var subscriberExpectations: [Stream] = []
    /// The `subscribed NAME:` lines of a given-output spec (one per subscription): when an
    /// input or an inner was subscribed in the test that wrote the spec. An inner is drawn from
    /// its subscription, an input gets its subscription brackets.
    public var givenSubscriptions: [Stream] = []
    /// The `expected subscribed NAME:` lines: the subscriptions a test expected of input `NAME`
    /// (drawn as brackets against its `subscribed` ones, differing frames highlighted).
    public var expectedSubscriptions: [Stream] = []
    /// The `connect:` line (`--^---!`): when a connectable operator (`publish`, `multicast`)
    /// connects to its source, and when that connection is disposed.
    public var connection: Stream?
    /// The `style:` options.
    public var style = Style()
    /// `failed` for specs written by a failing test.
    public var status: String?
    /// Where a test-written spec came from (`File.swift:12`).
    public var source: String?
    /// The `symbol:` line: the documentation symbol this diagram illustrates
    /// (`ObservableType/map(_:)`); the DocC gallery puts the diagram on that symbol's page.
    public var symbol: String?
    /// The spec's lines, for error messages.
    public var lines: [String] = []

    /// Parses spec text; `file` names it in errors.
    public static func parse(_ text: String, file: String = "<spec>") throws(SpecError) -> DiagramSpec {
        var spec = DiagramSpec(file: file)
        spec.lines = text.split(separator: "\n", omittingEmptySubsequences: false).map {
            $0.hasSuffix("\r") ? String($0.dropLast()) : String($0)
        }
        var state = ParseState()
        for (index, raw) in spec.lines.enumerated() {
            guard let line = try SpecLine(raw, number: index + 1, file: file) else { continue }
            try spec.apply(line, state: &state)
        }
        try spec.checkComplete()
        return spec
    }

    /// What the line-by-line parse remembers: where each stream and value key was defined.
    struct ParseState {
        var streamLines: [String: Int] = [:]
        var valueLines: [String: Int] = [:]
    }

    static let keyList =
        "keys: title, input, hot, cold, inner, values, operator, expected, actual, subscriber, subscribed, connect, style, symbol"

    mutating func apply(_ line: SpecLine, state: inout ParseState) throws(SpecError) {
        switch line.key {
        case "input", "cold", "hot", "inner":
            try addStream(line, state: &state)
        case "values":
            try line.requireNoName()
            try addValues(line, state: &state)
        case "subscriber":
            try addSubscriber(line, state: &state)
        case "subscribed", "expected subscribed":
            guard let name = line.name else {
                throw line.fail(line.indent + 1, "name the input or inner it describes: '\(line.key) x: --^---!'")
            }
            let stream = line.stream(named: name, kind: .cold)
            if line.key == "subscribed" { givenSubscriptions.append(stream) } else { expectedSubscriptions.append(stream) }
        case "expected" where line.name != nil:
            guard let name = line.name else { return }
            if let previous = subscriberExpectations.first(where: { $0.name == name }) {
                throw line.fail(line.indent + 1, "a second 'expected \(name)' line (the first is on line \(previous.line))")
            }
            subscriberExpectations.append(line.stream(named: name, kind: .cold))
        default:
            try line.requireNoName()
            try applySetting(line)
        }
    }

    /// The keys that take no name and set one thing.
    mutating func applySetting(_ line: SpecLine) throws(SpecError) {
        switch line.key {
        case "title":
            try line.once(title)
            title = line.value
        case "operator":
            try line.once(call)
            call = try line.parsing { (value, column) throws(LineError) in try Self.parseCall(value, line: line.number, column: column) }
        case "expected":
            try line.once(expected)
            expected = line.stream(named: "expected", kind: .cold)
        case "connect":
            try line.once(connection)
            connection = line.stream(named: "connect", kind: .cold)
        case "actual":
            try line.once(actual)
            actual = line.stream(named: "actual", kind: .cold)
        case "style":
            let current = style
            style = try line.parsing { (value, column) throws(LineError) in try Self.parseStyle(value, column: column, into: current) }
        case "status":
            guard line.value == "passed" || line.value == "failed" else {
                throw line.fail(line.valueColumn, "status is 'passed' or 'failed'")
            }
            status = line.value
        case "source":
            source = line.value
        case "symbol":
            try line.once(symbol)
            guard !line.value.isEmpty, !line.value.contains(where: \.isWhitespace) else {
                throw line.fail(line.valueColumn, "symbol is one documentation path without spaces, like ObservableType/map(_:)")
            }
            symbol = line.value
        default:
            throw line.fail(line.indent + 1, "unknown key '\(line.key)' (\(Self.keyList))")
        }
    }

    mutating func addStream(_ line: SpecLine, state: inout ParseState) throws(SpecError) {
        let isInner = line.key == "inner"
        guard let name = line.name ?? (isInner || !inputs.isEmpty ? nil : "source") else {
            throw line.fail(
                line.indent + 1,
                isInner
                    ? "an inner observable needs a name: 'inner x: --a|'" : "every input after the first needs a name: 'input b: --x--|'")
        }
        let nameColumn = line.indent + 1 + line.key.count + 1
        let isWord = name.allSatisfy { $0.isLetter || $0.isNumber || $0 == "_" }
        if isInner, !isWord {
            throw line.fail(
                nameColumn, "'\(name)' cannot name an inner observable: use the value's key as written in the input (letters, digits, _)")
        }
        if !isInner, !isWord || name.first?.isNumber == true {
            throw line.fail(
                nameColumn, "'\(name)' is not an input name: start with a letter, then letters, digits or _ (it is used in the operator)")
        }
        if let previous = state.streamLines[name] {
            throw line.fail(nameColumn, "'\(name)' is already defined on line \(previous)")
        }
        state.streamLines[name] = line.number
        let stream = line.stream(named: name, kind: line.key == "hot" ? .hot : .cold)
        if isInner { inners.append(stream) } else { inputs.append(stream) }
    }

    mutating func addSubscriber(_ line: SpecLine, state: inout ParseState) throws(SpecError) {
        let nameColumn = line.indent + 1 + line.key.count + 1
        guard let name = line.name else {
            throw line.fail(line.indent + 1, "a subscriber needs a name: 'subscriber A: --^-----!'")
        }
        guard name.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "_" }), name.first?.isNumber == false else {
            throw line.fail(nameColumn, "'\(name)' is not a subscriber name: start with a letter, then letters, digits or _")
        }
        if let previous = state.streamLines[name] {
            throw line.fail(nameColumn, "'\(name)' is already defined on line \(previous)")
        }
        state.streamLines[name] = line.number
        subscribers.append(line.stream(named: name, kind: .cold))
    }

    mutating func addValues(_ line: SpecLine, state: inout ParseState) throws(SpecError) {
        let entries = try line.parsing { (value, column) throws(LineError) in try Self.parseKeyedValues(value, column: column) }
        for entry in entries {
            if let previous = state.valueLines[entry.key] {
                let place = previous == line.number ? "earlier on this line" : "on line \(previous)"
                throw line.fail(entry.column, "the value key '\(entry.key)' is already given \(place)")
            }
            state.valueLines[entry.key] = line.number
            values[entry.key] = entry.value
        }
    }

    func checkComplete() throws(SpecError) {
        if inputs.isEmpty && actual == nil && call == nil {
            throw SpecError(
                file: file, line: max(lines.count, 1), column: 1, lineText: lines.last ?? "",
                message: "a spec needs at least one 'input' line, an 'operator' or an 'actual' line")
        }
        if actual != nil, let call {
            throw SpecError(
                file: file, line: call.line, column: 1, lineText: lines[call.line - 1],
                message: "a spec has either an 'operator' (output computed) or an 'actual' line (output given), not both")
        }
        if call == nil, let first = subscribers.first ?? connection {
            throw SpecError(
                file: file, line: first.line, column: 1, lineText: lines[first.line - 1],
                message: "'subscriber' and 'connect' lines need an 'operator' line: they subscribe to its output")
        }
        if let plain = expected, let first = subscribers.first, let named = subscriberExpectations.first(where: { $0.name == first.name }) {
            throw SpecError(
                file: file, line: plain.line, column: 1, lineText: lines[plain.line - 1],
                message: "'expected:' and 'expected \(first.name):' (line \(named.line)) both describe the first subscriber")
        }
        try checkGivenSubscriptions()
        for expectation in subscriberExpectations where !subscribers.contains(where: { $0.name == expectation.name }) {
            let names = subscribers.map { "'\($0.name)'" }.joined(separator: ", ")
            throw SpecError(
                file: file, line: expectation.line, column: 1, lineText: lines[expectation.line - 1],
                message: subscribers.isEmpty
                    ? "'expected \(expectation.name)' names no subscriber: add 'subscriber \(expectation.name): ^' or write 'expected:'"
                    : "'expected \(expectation.name)' names no subscriber (the subscribers are \(names))")
        }
    }

    /// `subscribed` lines belong to given-output specs and name a stream they define;
    /// `expected subscribed` lines name one input.
    func checkGivenSubscriptions() throws(SpecError) {
        let known = inputs.map(\.name) + inners.map(\.name)
        let lines = givenSubscriptions.map { ("subscribed", $0) } + expectedSubscriptions.map { ("expected subscribed", $0) }
        for (key, stream) in lines {
            let text = self.lines[stream.line - 1]
            // The name's column: after the key's words, before the colon.
            let nameColumn = text.range(of: " \(stream.name)").map { text.distance(from: text.startIndex, to: $0.lowerBound) + 2 } ?? 1
            func fail(_ message: String) -> SpecError {
                SpecError(file: file, line: stream.line, column: nameColumn, lineText: text, message: message)
            }
            if call != nil {
                throw fail("'\(key)' lines belong to a spec with an 'actual' line; with an 'operator' the run logs subscriptions itself")
            }
            if !known.contains(stream.name) {
                let names = known.map { "'\($0)'" }.joined(separator: ", ")
                throw fail("'\(key) \(stream.name)' names no input or inner" + (known.isEmpty ? "" : " (they are \(names))"))
            }
            if key == "expected subscribed", let first = expectedSubscriptions.first, first.name != stream.name {
                throw fail("'expected subscribed' lines describe one input; line \(first.line) names '\(first.name)'")
            }
        }
    }

    /// `a = 1, b = "two", c = 2.5, 'ten' = 10`
    static func parseValues(_ text: String, column: Int) throws(LineError) -> [(String, SpecValue)] {
        try parseKeyedValues(text, column: column).map { ($0.key, $0.value) }
    }

    /// One `key = value` entry and the column of its key.
    struct KeyedValue {
        var key: String
        var value: SpecValue
        var column: Int
    }

    static func parseKeyedValues(_ text: String, column: Int) throws(LineError) -> [KeyedValue] {
        var parser = ExpressionParser(text, columnOffset: column - 1)
        var result: [KeyedValue] = []
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
            result.append(KeyedValue(key: key, value: value, column: keyColumn))
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
            case ("gaps", .string(let g)) where g == "compress" || g == "full":
                style.compressesGaps = g == "compress"
            default:
                throw LineError(
                    column: column,
                    message: "unknown style '\(key) = \(value.literal)' (frame = 32, radius = 15, theme = light|dark, gaps = compress|full)"
                )
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

/// One non-blank, non-comment line of a spec, split into `key [name]: value`.
struct SpecLine {
    let raw: String
    let number: Int
    let file: String
    let indent: Int
    let key: String
    let name: String?
    let value: String
    let valueColumn: Int

    /// `nil` for blank lines and `//` comments.
    init?(_ raw: String, number: Int, file: String) throws(SpecError) {
        self.raw = raw
        self.number = number
        self.file = file
        let trimmed = raw.drop { $0 == " " || $0 == "\t" }
        if trimmed.isEmpty || trimmed.hasPrefix("//") { return nil }
        let indent = raw.count - trimmed.count
        self.indent = indent
        func fail(_ column: Int, _ message: String) -> SpecError {
            SpecError(file: file, line: number, column: column, lineText: raw, message: message)
        }
        guard let colon = trimmed.firstIndex(of: ":") else {
            throw fail(indent + 1, "expected 'key: value' (\(DiagramSpec.keyList))")
        }
        var head = trimmed[..<colon].split(separator: " ", omittingEmptySubsequences: true).map(String.init)
        // The one key of two words.
        if head.count >= 2, head[0] == "expected", head[1] == "subscribed" { head = ["expected subscribed"] + head.dropFirst(2) }
        guard let key = head.first else { throw fail(indent + 1, "missing key before ':'") }
        if head.count > 2 { throw fail(indent + 1, "too many words before ':' (write 'input NAME: diagram')") }
        let rest = trimmed[trimmed.index(after: colon)...]
        let value = rest.drop { $0 == " " || $0 == "\t" }
        self.key = key
        self.name = head.count > 1 ? head[1] : nil
        self.value = String(value)
        self.valueColumn = indent + trimmed.distance(from: trimmed.startIndex, to: colon) + 1 + 1 + (rest.count - value.count)
    }

    func fail(_ column: Int, _ message: String) -> SpecError {
        SpecError(file: file, line: number, column: column, lineText: raw, message: message)
    }

    func requireNoName() throws(SpecError) {
        if name != nil { throw fail(indent + 1 + key.count + 1, "'\(key)' takes no name") }
    }

    func once<T>(_ existing: T?) throws(SpecError) {
        if existing != nil { throw fail(indent + 1, "a second '\(key)' line: a spec has one") }
    }

    func stream(named name: String, kind: DiagramSpec.Stream.Kind) -> DiagramSpec.Stream {
        DiagramSpec.Stream(name: name, kind: kind, diagram: value, line: number, column: valueColumn)
    }

    /// Runs a parser over the value, turning its column errors into located spec errors.
    func parsing<T>(_ body: (String, Int) throws(LineError) -> T) throws(SpecError) -> T {
        do throws(LineError) { return try body(value, valueColumn) } catch { throw fail(error.column, error.message) }
    }
}
