import MarbleCore
import Marbles

// The marble language read the plain way, for reading and as the specification the tuned
// `MarbleDiagram.Parser` is checked against (ReferenceParserTests). Measured against the tuned parser
// (issue 31 §6) as the library's parser: a 10-event test 21% slower in release and 4% in a
// debug build, a 1 MB diagram 4.7× slower (docs/DESIGN.md has the figures); so the library
// keeps the tuned one and this stays beside its tests. Same language, same errors at the same columns; one difference: a time that
// overflows is reported where it overflows, while the tuned parser may report a later error.

/// An event or a marker of a diagram, at its column.
struct DiagramToken: Sendable {
    enum Kind: Equatable, Sendable {
        case complete, error, zero, unsubscribe
        case value(String)
    }
    var kind: Kind
    var column: Int

    /// The token as written, for error messages.
    var character: Character {
        switch kind {
        case .complete: "|"
        case .error: "#"
        case .zero: "^"
        case .unsubscribe: "!"
        case .value(let key): key.first ?? "'"
        }
    }
}

/// An event of an observable diagram as read: its time (relative to `^`) and its token, before
/// its value is looked up.
struct TimedToken: Sendable {
    var time: Duration
    var token: DiagramToken
}

/// Reads a diagram's characters into tokens, keeping the time cursor and the open group; shared
/// by the observable, subscription and time parsers so that all three count frames alike.
///
/// Frames, spaces, groups and time progressions move the cursor and are never returned; events
/// (`|`, `#`, values) and markers (`^`, `!`) are. Columns count characters (grapheme clusters),
/// 1-based, across the whole diagram; ``MarbleDiagram/SyntaxError`` turns them into lines.
struct DiagramReader {
    /// A group being read: its events all take the time it opened at.
    struct Group {
        var start: Int64
        /// `[ … ]`: the whole group costs one frame; `( … )` costs one per character.
        var isCompact: Bool
        var column: Int
        var events = 0
    }

    let diagram: String
    /// The diagram's scalars: symbols are single ASCII scalars; a value is a grapheme cluster.
    private let scalars: [Unicode.Scalar]
    private let frameNanos: Int64
    private var position = 0
    /// Counts characters as read: a frame, a space, a symbol or a value's cluster each take one.
    private var column = 0
    private(set) var cursor: Int64 = 0
    private(set) var group: Group?

    init(_ diagram: String, frameNanos: Int64) {
        self.diagram = diagram
        // One pass over the UTF-8 (`Array(_:)` would count the scalars first).
        var scalars: [Unicode.Scalar] = []
        scalars.reserveCapacity(diagram.utf8.count)
        scalars.append(contentsOf: diagram.unicodeScalars)
        self.scalars = scalars
        self.frameNanos = frameNanos
    }

    /// The time an event read now is stamped with: its group's, else the cursor's.
    var eventTime: Int64 { group?.start ?? cursor }

    func fail(_ kind: MarbleDiagram.SyntaxError.Kind, at column: Int) -> MarbleDiagram.SyntaxError {
        MarbleDiagram.SyntaxError(kind, diagram: diagram, column: column)
    }

    /// The next event or marker; `nil` at the end.
    mutating func next() throws(MarbleDiagram.SyntaxError) -> DiagramToken? {
        while position < scalars.count {
            column += 1
            // A frame outside a compact group is a frame whatever follows it.
            if scalars[position] == "-", group?.isCompact != true {
                position += 1
                try advance(by: frameNanos, column: column)
                continue
            }
            // Anything else may start a cluster (`e` + U+0301, a space + a combining mark): a
            // cluster of several scalars is a value.
            let cluster = clusterLength(at: position)
            if cluster > 1 {
                let value = String(scalars[position..<(position + cluster)])
                position += cluster
                return DiagramToken(kind: .value(value), column: column)
            }
            let scalar = scalars[position]
            position += 1
            switch scalar {
            case " ":
                continue
            case "-":
                throw fail(.timeInCompactGroup, at: column)
            case "(", "[":
                if group != nil { throw fail(.nestedGroup, at: column) }
                group = Group(start: cursor, isCompact: scalar == "[", column: column)
                if scalar == "(" { try advance(by: frameNanos, column: column) }
            case ")", "]":
                try closeGroup(compact: scalar == "]", column: column)
            case "'":
                return try quoted()
            case "|": return DiagramToken(kind: .complete, column: column)
            case "#": return DiagramToken(kind: .error, column: column)
            case "^": return DiagramToken(kind: .zero, column: column)
            case "!": return DiagramToken(kind: .unsubscribe, column: column)
            default:
                let atWordStart = position == 1 || scalars[position - 2] == " "
                if scalar.isASCIIDigit, atWordStart, try timeProgression() { continue }
                return DiagramToken(kind: .value(Self.key(scalar)), column: column)
            }
        }
        return nil
    }

    /// A one-scalar value's key; ASCII keys are made once.
    static func key(_ scalar: Unicode.Scalar) -> String {
        scalar.isASCII ? asciiKeys[Int(scalar.value)] : String(Character(scalar))
    }

    private static let asciiKeys = (0..<128).map { String(Character(Unicode.Scalar(UInt8($0)))) }

    /// How many scalars the grapheme cluster starting at `start` holds.
    private func clusterLength(at start: Int) -> Int {
        // Only a non-ASCII scalar, here or next, or `\r\n` can make a cluster of several.
        let next = start + 1 < scalars.count ? scalars[start + 1] : " "
        guard !scalars[start].isASCII || !next.isASCII || (scalars[start] == "\r" && next == "\n") else { return 1 }
        // Read from a window that grows until the cluster ends inside it.
        var window = 32
        while true {
            let end = min(start + window, scalars.count)
            let text = String(scalars[start..<end])
            let length = text.first!.unicodeScalars.count
            if end == scalars.count || length < end - start { return length }
            window *= 2
        }
    }

    /// Counts an event or marker in the open group and moves past its frame (a compact group
    /// is charged its one frame when it closes).
    mutating func eventDone(column: Int) throws(MarbleDiagram.SyntaxError) {
        noteEvent()
        try advanceOneFrame(column: column)
    }

    mutating func noteEvent() { group?.events += 1 }

    mutating func advanceOneFrame(column: Int) throws(MarbleDiagram.SyntaxError) {
        if group?.isCompact != true { try advance(by: frameNanos, column: column) }
    }

    /// Fails on a group left open.
    func finish() throws(MarbleDiagram.SyntaxError) {
        if let group { throw fail(.unclosedGroup, at: group.column) }
    }

    /// Moves the cursor, keeping it within a quarter of `Int64` (room for offsets and hot
    /// negatives).
    private mutating func advance(by nanos: Int64, column: Int) throws(MarbleDiagram.SyntaxError) {
        let (sum, overflow) = cursor.addingReportingOverflow(nanos)
        if overflow || sum > Int64.max / 4 { throw fail(.timeOverflow, at: column) }
        cursor = sum
    }

    private mutating func closeGroup(compact: Bool, column: Int) throws(MarbleDiagram.SyntaxError) {
        guard let open = group, open.isCompact == compact else { throw fail(.unopenedGroup, at: column) }
        if open.events == 0 { throw fail(.emptyGroup, at: open.column) }
        group = nil
        if compact { cursor = open.start }
        try advance(by: frameNanos, column: column)
    }

    /// A `'quoted value'` whose opening quote was just read; `\` escapes the next scalar.
    private mutating func quoted() throws(MarbleDiagram.SyntaxError) -> DiagramToken {
        let open = column
        let textStart = position
        var text = String.UnicodeScalarView()
        while position < scalars.count {
            let scalar = scalars[position]
            position += 1
            if scalar == "\\", position < scalars.count {
                text.append(scalars[position])
                position += 1
            } else if scalar == "'" {
                if text.isEmpty { throw fail(.emptyQuote, at: open) }
                // The quoted text and its closing quote, in characters.
                column = open + String(scalars[textStart..<position]).count
                return DiagramToken(kind: .value(String(text)), column: open)
            } else {
                text.append(scalar)
            }
        }
        throw fail(.unterminatedQuote, at: open)
    }

    /// Applies a time progression (`10ms`, `1.5s`, `2m`, then a space or the end) whose first
    /// digit was just read; false when it starts none. Digits then letters that are not one
    /// (`10xs`) are an error, as is one longer than the clock can hold.
    private mutating func timeProgression() throws(MarbleDiagram.SyntaxError) -> Bool {
        let start = position - 1
        var end = start
        while end < scalars.count, scalars[end] != " " { end += 1 }
        let word = scalars[start..<end]
        guard let nanos = Self.duration(of: word) else {
            if Self.looksLikeTimeProgression(word) { throw fail(.invalidTimeProgression(String(word)), at: column) }
            return false
        }
        guard let nanos else { throw fail(.timeProgressionTooLong(String(word)), at: column) }
        if group?.isCompact == true { throw fail(.timeInCompactGroup, at: column) }
        try advance(by: nanos, column: column)
        column += word.count - 1
        position = end
        return true
    }

    /// `N(.N)?(ms|s|m)` in nanoseconds; `.some(nil)` when it does not fit within a quarter of
    /// `Int64`, `nil` when `word` is not a time progression.
    static func duration(of word: ArraySlice<Unicode.Scalar>) -> Int64?? {
        var i = word.startIndex
        var whole: Int64? = 0  // nil once the digits no longer fit
        while i < word.endIndex, let digit = word[i].asciiDigitValue {
            whole = whole.flatMap { Self.appending(digit, to: $0) }
            i += 1
        }
        // Fractions finer than a nanosecond of a second are cut (at most nine digits are read).
        var fraction: Int64 = 0
        var scale: Int64 = 1
        if i < word.endIndex, word[i] == "." {
            i += 1
            let digitsStart = i
            while i < word.endIndex, let digit = word[i].asciiDigitValue {
                if scale < 1_000_000_000 { (fraction, scale) = (fraction * 10 + digit, scale * 10) }
                i += 1
            }
            if i == digitsStart { return nil }
        }
        let unitNanos: Int64
        switch Array(word[i...]) {
        case ["m", "s"]: unitNanos = 1_000_000
        case ["s"]: unitNanos = 1_000_000_000
        case ["m"]: unitNanos = 60_000_000_000
        default: return nil
        }
        guard let whole else { return .some(nil) }
        let (wholeNanos, overflow) = whole.multipliedReportingOverflow(by: unitNanos)
        // fraction / scale < 1, so the product divided back fits in 64 bits.
        let product = fraction.multipliedFullWidth(by: unitNanos)
        let fractionNanos = scale.dividingFullWidth((high: product.high, low: product.low)).quotient
        let (total, overflow2) = wholeNanos.addingReportingOverflow(fractionNanos)
        if overflow || overflow2 || total > Int64.max / 4 { return .some(nil) }
        return total
    }

    /// `number * 10 + digit`, or `nil` when it does not fit.
    private static func appending(_ digit: Int64, to number: Int64) -> Int64? {
        let (times10, overflow1) = number.multipliedReportingOverflow(by: 10)
        let (sum, overflow2) = times10.addingReportingOverflow(digit)
        return overflow1 || overflow2 ? nil : sum
    }

    /// Digits (and dots) then letters only: almost surely a mistyped time progression.
    static func looksLikeTimeProgression(_ word: ArraySlice<Unicode.Scalar>) -> Bool {
        let letters = word.drop { $0.isASCIIDigit || $0 == "." }
        return !letters.isEmpty && letters.count < word.count && letters.allSatisfy { $0.isASCII && $0.properties.isAlphabetic }
    }
}

extension String {
    init(_ scalars: ArraySlice<Unicode.Scalar>) {
        var view = String.UnicodeScalarView()
        view.append(contentsOf: scalars)
        self = String(view)
    }
}

extension Unicode.Scalar {
    var isASCIIDigit: Bool { ("0"..."9").contains(self) }
    var asciiDigitValue: Int64? { isASCIIDigit ? Int64(value - 0x30) : nil }
}

/// The reference parser: the three entry points of `MarbleDiagram.Parser` over `DiagramReader`.
struct ReferenceParser {
    let frameNanos: Int64

    init(frame: Duration = .milliseconds(1)) {
        frameNanos = Int64(frame.components.seconds) * 1_000_000_000 + frame.components.attoseconds / 1_000_000_000
    }

    /// The events of an observable diagram, each value's key as a String.
    func parse(_ diagram: String, kind: MarbleDiagram.Kind) throws(MarbleDiagram.SyntaxError) -> [Recorded<Event<String>>] {
        try readTimeline(diagram, kind: kind).map { read in
            switch read.token.kind {
            case .complete: Recorded(time: read.time, value: .completed)
            case .error: Recorded(time: read.time, value: .error(MarbleError()))
            case .value(let key): Recorded(time: read.time, value: .next(key))
            case .zero, .unsubscribe: preconditionFailure("never in a timeline")
            }
        }
    }

    /// The events of an observable diagram (`|`, `#` and values), with their times; the
    /// grammar of `^`, `!` and the end of an expected diagram applied.
    func readTimeline(_ diagram: String, kind: MarbleDiagram.Kind) throws(MarbleDiagram.SyntaxError) -> [TimedToken] {
        var reader = DiagramReader(diagram, frameNanos: frameNanos)
        var events: [TimedToken] = []
        // Short diagrams (most) reserve once for every event they could hold.
        events.reserveCapacity(min(diagram.utf8.count, 256))
        var zero: Int64?
        var terminated = false
        while let token = try reader.next() {
            switch token.kind {
            case .zero:
                if kind == .cold { throw reader.fail(.zeroInColdDiagram, at: token.column) }
                if reader.group != nil { throw reader.fail(.zeroInGroup, at: token.column) }
                if zero != nil { throw reader.fail(.secondZero, at: token.column) }
                zero = reader.cursor
                try reader.advanceOneFrame(column: token.column)
            case .unsubscribe:
                throw reader.fail(.unsubscribeOutsideSubscriptionDiagram, at: token.column)
            case .complete, .error, .value:
                if kind == .expected && terminated { throw reader.fail(.eventAfterTermination, at: token.column) }
                if token.kind == .complete || token.kind == .error { terminated = true }
                events.append(TimedToken(time: .nanoseconds(reader.eventTime), token: token))
                try reader.eventDone(column: token.column)
            }
        }
        try reader.finish()
        guard let zero, zero != 0 else { return events }
        return events.map { TimedToken(time: $0.time - .nanoseconds(zero), token: $0.token) }
    }

    /// A subscription diagram's `^` and `!` times.
    func readSubscription(_ diagram: String) throws(MarbleDiagram.SyntaxError) -> (subscribe: Duration?, unsubscribe: Duration?) {
        var reader = DiagramReader(diagram, frameNanos: frameNanos)
        var subscribe: Int64?
        var unsubscribe: (time: Int64, column: Int)?
        while let token = try reader.next() {
            switch token.kind {
            case .zero:
                if subscribe != nil { throw reader.fail(.secondSubscribe, at: token.column) }
                if let unsubscribe { throw reader.fail(.unsubscribeBeforeSubscribe, at: unsubscribe.column) }
                subscribe = reader.eventTime
                try reader.eventDone(column: token.column)
            case .unsubscribe:
                if unsubscribe != nil { throw reader.fail(.secondUnsubscribe, at: token.column) }
                unsubscribe = (reader.eventTime, token.column)
                reader.noteEvent()
            case .complete, .error, .value:
                throw reader.fail(.unexpectedSymbolInSubscriptionDiagram(token.character), at: token.column)
            }
        }
        try reader.finish()
        return (subscribe.map { .nanoseconds($0) }, unsubscribe.map { .nanoseconds($0.time) })
    }

    /// The time of a diagram's first `|`.
    func readTime(_ diagram: String) throws(MarbleDiagram.SyntaxError) -> Duration {
        var reader = DiagramReader(diagram, frameNanos: frameNanos)
        while let token = try reader.next() {
            switch token.kind {
            case .complete: return .nanoseconds(reader.eventTime)
            case .zero, .error, .value: try reader.eventDone(column: token.column)
            case .unsubscribe: continue
            }
        }
        throw MarbleDiagram.SyntaxError(.noCompletion, diagram: diagram, column: max(diagram.count, 1))
    }
}
