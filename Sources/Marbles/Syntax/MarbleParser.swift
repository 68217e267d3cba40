/// Which rules a diagram follows.
public enum DiagramKind: Sendable {
    /// A cold observable: times count from each subscription; no `^`.
    case cold
    /// A hot observable: `^` marks frame 0; earlier characters are negative frames.
    case hot
    /// An expected output: `^` allowed; nothing may follow `|` or `#`.
    case expected
}

/// Reads marble diagrams into timed events; see ``MarbleSymbol`` for the language.
///
/// ```swift
/// let events = try MarbleParser().parse("--a-(bc)-|", kind: .cold)
/// // a @ 2ms, b @ 4ms, c @ 4ms, completed @ 9ms
/// ```
public struct MarbleParser: Sendable {
    /// The virtual time one frame stands for.
    public let frame: Duration
    @usableFromInline let frameNanos: Int64

    /// Creates a parser; one frame is 1 ms unless told otherwise.
    public init(frame: Duration = .milliseconds(1)) {
        self.frame = frame
        self.frameNanos = VirtualTimeScheduler.nanos(frame)
    }

    /// Parses a diagram whose values are its own characters (or quoted texts).
    public func parse(_ diagram: String, kind: DiagramKind, error: any Error = MarbleError.boxed) throws(MarbleSyntaxError) -> [Recorded<
        Event<String>
    >] {
        try parse(diagram, kind: kind, error: error) { $0 }
    }

    /// Parses a diagram, mapping each value's key through `values`; a key missing from a
    /// non-empty dictionary is an error. With an empty dictionary, `Value` must be `String`
    /// or the keys are errors.
    // Inlinable, as the paths below it, so that a test's value type is specialized in the test
    // module instead of run as unspecialized generic code (metadata lookups per event).
    @inlinable
    public func parse<Value>(
        _ diagram: String, kind: DiagramKind, values: [String: Value], error: any Error = MarbleError.boxed
    ) throws(MarbleSyntaxError) -> [Recorded<Event<Value>>] {
        if values.isEmpty, Value.self == String.self {
            // `Value` is `String` here, so the bit cast is the identity (and avoids a dynamic
            // cast per value).
            return try parse(diagram, kind: kind, error: error) { key in unsafeBitCast(key, to: Value.self) }
        }
        // Long diagrams look each one-character key up once, not by hashing it at every event.
        guard diagram.utf8.count > 64 else {
            // Short diagrams repeat a key more often than not (`a-a-a|`): the last lookup is
            // kept instead of hashing the key again.
            var last: (key: String, value: Value?)?
            return try parse(diagram, kind: kind, error: error) { key in
                if let last, last.key == key { return last.value }
                let value = values[key]
                last = (key, value)
                return value
            }
        }
        var looked: [Value??] = Array(repeating: nil, count: 128)
        return try parse(diagram, kind: kind, error: error) { key in
            guard key.utf8.count == 1, let byte = key.utf8.first, byte < 128 else { return values[key] }
            if let known = looked[Int(byte)] { return known }
            let found = values[key]
            looked[Int(byte)] = .some(found)
            return found
        }
    }

    /// Parses a diagram, resolving each value's key with `resolve`; `nil` is a missing value.
    @inlinable
    public func parse<Value>(
        _ diagram: String, kind: DiagramKind, error: any Error = MarbleError.boxed, resolve: (String) -> Value?
    ) throws(MarbleSyntaxError) -> [Recorded<Event<Value>>] {
        var events: [Recorded<Event<Value>>] = []
        events.reserveCapacity(MarbleParser.eventBound(diagram))
        // A missing value is reported after the whole diagram scanned cleanly, so that a syntax
        // error anywhere wins over it.
        var missing: (key: String, column: Int)?
        let zero = try scanEvents(diagram, kind: kind) { time, symbol, key, column in
            switch symbol {
            case .complete: events.append(Recorded(time: .nanoseconds(time), value: .completed))
            case .error: events.append(Recorded(time: .nanoseconds(time), value: .error(error)))
            default:
                guard let value = resolve(key) else {
                    if missing == nil { missing = (key, column) }
                    return
                }
                events.append(Recorded(time: .nanoseconds(time), value: .next(value)))
            }
        }
        if let missing { throw MarbleSyntaxError(.missingValue(missing.key), diagram: diagram, column: missing.column) }
        if zero != 0 {
            let offset = Duration.nanoseconds(zero)
            for i in events.indices { events[i].time -= offset }
        }
        return events
    }

    /// At least the number of events a diagram can hold: for a long one, its bytes that are
    /// not frames, spaces or group brackets (one pass the compiler vectorizes), so that
    /// parsing reserves once and never copies a growing array.
    @usableFromInline
    static func eventBound(_ diagram: String) -> Int {
        let count = diagram.utf8.count
        // A short diagram's bytes are a bound cheaper to reserve than to count.
        guard count > 256 else { return count }
        var diagram = diagram
        return diagram.withUTF8 { bytes in
            var skipped = 0
            for byte in bytes {
                // `-`, ` `, `(`, `)`, `[`, `]`
                let isFrameOrSpace = byte == 0x2D || byte == 0x20
                let isBracket = byte == 0x28 || byte == 0x29 || byte == 0x5B || byte == 0x5D
                skipped &+= isFrameOrSpace || isBracket ? 1 : 0
            }
            return count - skipped
        }
    }

    /// The type-independent part of parsing, in one pass: hands each event to `emit` with its
    /// time in nanoseconds before `^` is applied, its symbol (`|`, `#`, or `nil` for a value),
    /// its key (empty for `|` and `#`) and column; returns the time of `^` (0 without one).
    // Not generic: per event it calls the caller's specialized closure, which costs less than
    // returning an event across the module boundary (value witnesses for each one).
    @usableFromInline
    func scanEvents(
        _ diagram: String, kind: DiagramKind, emit: (Int64, MarbleSymbol?, String, Int) -> Void
    ) throws(MarbleSyntaxError) -> Int64 {
        try Scanner.withBytes(of: diagram) { bytes throws(MarbleSyntaxError) in
            var scanner = Scanner(diagram, bytes: bytes, frameNanos: frameNanos)
            try scanner.scanEvents(kind: kind, emit: emit)
            return scanner.zero ?? 0
        }
    }

    /// One-character keys for ASCII values, made once.
    static let asciiKeys: [String] = (0..<128).map { String(Unicode.Scalar(UInt8($0))) }

    /// Parses a subscription diagram: `^` subscribes (and costs a frame), `!` unsubscribes
    /// (and costs none). No `^` means no subscription in a subscription log, and frame 0 in
    /// `expect(_:unsubscribe:)`; a `^` after the `!` is an error.
    public func parseSubscription(_ diagram: String) throws(MarbleSyntaxError) -> (subscribe: Duration?, unsubscribe: Duration?) {
        try Scanner.withBytes(of: diagram) { bytes throws(MarbleSyntaxError) in try parseSubscription(diagram, bytes: bytes) }
    }

    private func parseSubscription(
        _ diagram: String, bytes: UnsafeBufferPointer<UInt8>
    ) throws(MarbleSyntaxError) -> (subscribe: Duration?, unsubscribe: Duration?) {
        var scanner = Scanner(diagram, bytes: bytes, frameNanos: frameNanos)
        var subscribe: Int64?
        var unsubscribe: Int64?
        var unsubscribeColumn = 0
        func fail(_ kind: MarbleSyntaxError.Kind, _ column: Int) -> MarbleSyntaxError {
            MarbleSyntaxError(kind, diagram: diagram, column: column)
        }
        while let token = try scanner.next() {
            switch token.symbol {
            case .zero:
                if subscribe != nil { throw fail(.secondSubscribe, token.column) }
                if unsubscribe != nil { throw fail(.unsubscribeBeforeSubscribe, unsubscribeColumn) }
                subscribe = scanner.eventTime
                scanner.noteEvent()
                scanner.advanceOneFrame()
            case .unsubscribe:
                if unsubscribe != nil { throw fail(.secondUnsubscribe, token.column) }
                unsubscribe = scanner.eventTime
                unsubscribeColumn = token.column
                scanner.noteEvent()
            case .complete, .error, nil:
                throw fail(.unexpectedSymbolInSubscriptionDiagram(scanner.character(of: token)), token.column)
            default:
                continue
            }
        }
        try scanner.finish()
        return (subscribe.map { .nanoseconds($0) }, unsubscribe.map { .nanoseconds($0) })
    }

    /// Measures a diagram: the time of its first `|` (RxJS `time()`), counting spaces as
    /// nothing and time progressions as their duration.
    public func time(_ diagram: String) throws(MarbleSyntaxError) -> Duration {
        try Scanner.withBytes(of: diagram) { bytes throws(MarbleSyntaxError) in try time(diagram, bytes: bytes) }
    }

    private func time(_ diagram: String, bytes: UnsafeBufferPointer<UInt8>) throws(MarbleSyntaxError) -> Duration {
        var scanner = Scanner(diagram, bytes: bytes, frameNanos: frameNanos)
        while let token = try scanner.next() {
            switch token.symbol {
            case .complete: return .nanoseconds(scanner.eventTime)
            case .zero, .error, nil:
                scanner.noteEvent()
                scanner.advanceOneFrame()
            default: continue
            }
        }
        throw MarbleSyntaxError(.noCompletion, diagram: diagram, column: max(diagram.count, 1))
    }
}

/// Splits a diagram into tokens and keeps the time cursor and group state; shared by the
/// observable, subscription and time parsers so that all three count frames alike.
struct Scanner {
    /// A symbol or a value; a value is a range of the diagram's bytes (no string is made until
    /// an event needs its key).
    struct Token {
        /// The symbol, or `nil` for a value.
        var symbol: MarbleSymbol?
        /// A value's bytes: one ASCII byte, a grapheme cluster, or a quoted text without its
        /// quotes (escapes still in).
        var start = 0
        var end = 0
        var isQuoted = false
        var column: Int

        init(symbol: MarbleSymbol, column: Int) {
            self.symbol = symbol
            self.column = column
        }

        init(value start: Int, _ end: Int, quoted: Bool = false, column: Int) {
            self.start = start
            self.end = end
            self.isQuoted = quoted
            self.column = column
        }
    }

    /// A value token's key.
    func key(of token: Token) -> String { Self.key(of: token, in: bytes, keys: keys) }

    // Static: a mutating caller that called a method on `self` would copy the whole scanner.
    private static func key(of token: Token, in bytes: UnsafeBufferPointer<UInt8>, keys: [String]) -> String {
        if token.isQuoted {
            var text: [UInt8] = []
            text.reserveCapacity(token.end - token.start)
            var i = token.start
            while i < token.end {
                // `\` escapes the next byte; the scanner never ends a quoted range on an escape.
                if bytes[i] == 0x5C, i + 1 < token.end { i += 1 }
                text.append(bytes[i])
                i += 1
            }
            return String(decoding: text, as: UTF8.self)
        }
        if token.end - token.start == 1, bytes[token.start] < 0x80 { return keys[Int(bytes[token.start])] }
        return String(decoding: UnsafeBufferPointer(rebasing: bytes[token.start..<token.end]), as: UTF8.self)
    }

    /// The token as written (for error messages).
    func character(of token: Token) -> Character {
        if let symbol = token.symbol { return symbol.character }
        return key(of: token).first ?? "'"
    }

    private let diagram: String
    /// The diagram's UTF-8, valid for the scan (see ``withBytes(of:_:)``).
    private let bytes: UnsafeBufferPointer<UInt8>
    private let frameNanos: Int64
    private var index = 0
    private var column = 0
    private(set) var cursor: Int64 = 0
    private var overflowColumn: Int?
    private var groupStart: Int64?
    private var groupIsCompact = false
    private var groupColumn = 0
    private var groupEvents = 0
    /// The time of `^` in an observable diagram.
    private(set) var zero: Int64?
    /// Whether a `|` or `#` was read (an expected diagram allows nothing after it).
    private var terminated = false

    /// ``MarbleParser/asciiKeys``, read once per scan (a global's lazy-initialization check per
    /// value showed in profiles).
    private let keys = MarbleParser.asciiKeys

    init(_ diagram: String, bytes: UnsafeBufferPointer<UInt8>, frameNanos: Int64) {
        self.diagram = diagram
        self.bytes = bytes
        self.frameNanos = frameNanos
    }

    /// Runs `body` on the diagram's contiguous UTF-8 (a native string's own storage, no copy).
    static func withBytes<R>(
        of diagram: String, _ body: (UnsafeBufferPointer<UInt8>) throws(MarbleSyntaxError) -> R
    ) throws(MarbleSyntaxError) -> R {
        var diagram = diagram
        let result: Result<R, MarbleSyntaxError> = diagram.withUTF8 { bytes in
            do throws(MarbleSyntaxError) { return .success(try body(bytes)) } catch { return .failure(error) }
        }
        return try result.get()
    }

    var inGroup: Bool { groupStart != nil }

    /// The time an event read now is stamped with.
    var eventTime: Int64 { groupStart ?? cursor }

    mutating func noteEvent() { groupEvents += 1 }

    /// Advances one frame for an event or marker; inside a compact group, the group's single
    /// frame is charged when it closes instead.
    mutating func advanceOneFrame() {
        if !(groupStart != nil && groupIsCompact) { advanceCursor(by: frameNanos) }
    }

    /// Moves the cursor; past a quarter of `Int64` (room for offsets and hot negatives) the
    /// overflow is remembered and reported by the next call to `next()` or `finish()`.
    @inline(__always)
    mutating func advanceCursor(by nanos: Int64) {
        let (sum, overflow) = cursor.addingReportingOverflow(nanos)
        if overflow || sum > Int64.max / 4 {
            if overflowColumn == nil { overflowColumn = max(column, 1) }
            return
        }
        cursor = sum
    }

    private func error(_ kind: MarbleSyntaxError.Kind, at column: Int) -> MarbleSyntaxError {
        MarbleSyntaxError(kind, diagram: diagram, column: column)
    }

    /// Reads an observable diagram's events (`|`, `#` and values) into `emit`, then checks the
    /// diagram is complete.
    mutating func scanEvents(kind: DiagramKind, emit: (Int64, MarbleSymbol?, String, Int) -> Void) throws(MarbleSyntaxError) {
        while let token = try next() {
            switch token.symbol {
            case .zero:
                if kind == .cold { throw error(.zeroInColdDiagram, at: token.column) }
                if groupStart != nil { throw error(.zeroInGroup, at: token.column) }
                if zero != nil { throw error(.secondZero, at: token.column) }
                zero = cursor
                advanceOneFrame()
            case .unsubscribe:
                throw error(.unsubscribeOutsideSubscriptionDiagram, at: token.column)
            case .complete, .error, nil:
                if kind == .expected && terminated { throw error(.eventAfterTermination, at: token.column) }
                if token.symbol != nil { terminated = true }
                let key = token.symbol == nil ? Self.key(of: token, in: bytes, keys: keys) : ""
                emit(eventTime, token.symbol, key, token.column)
                groupEvents += 1
                advanceOneFrame()
            default:
                continue
            }
        }
        try finish()
    }

    /// The next token; spaces, frames, groups and time progressions are applied to the cursor
    /// here and not returned: callers only see events and markers.
    mutating func next() throws(MarbleSyntaxError) -> Token? {
        if let overflowColumn { throw error(.timeOverflow, at: overflowColumn) }
        while index < bytes.count {
            skipFramesAndSpaces()
            guard index < bytes.count else { break }
            let byte = bytes[index]
            column += 1
            let next = index + 1 < bytes.count ? bytes[index + 1] : 0
            if byte >= 0x80 || next >= 0x80 || byte == 0x0D, let cluster = clusterToken() { return cluster }
            let atTokenStart = index == 0 || bytes[index - 1] == MarbleSymbol.space.rawValue
            if atTokenStart, byte >= 0x30 && byte <= 0x39, try applyTimeProgression() { continue }
            index += 1
            guard MarbleSymbol.isSymbol(byte), let symbol = MarbleSymbol(rawValue: byte) else {
                return Token(value: index - 1, index, column: column)
            }
            switch symbol {
            case .space:
                continue
            case .frame:
                throw error(.timeInCompactGroup, at: column)
            case .groupOpen, .compactOpen, .groupClose, .compactClose:
                try applyGroup(symbol)
            case .quote:
                return try quotedToken()
            default:
                return Token(symbol: symbol, column: column)
            }
        }
        return nil
    }

    /// Skips the run of frames and spaces at `index`, the bulk of most diagrams, in one tight
    /// loop on locals; a frame inside a compact group is left for `next()` to report, a space
    /// before a non-ASCII byte for `clusterToken()`.
    @inline(__always)
    private mutating func skipFramesAndSpaces() {
        let inCompactGroup = groupStart != nil && groupIsCompact
        var i = index
        var frames: Int64 = 0
        while i < bytes.count {
            let byte = bytes[i]
            if byte == MarbleSymbol.frame.rawValue && !inCompactGroup {
                frames &+= 1
            } else if byte != MarbleSymbol.space.rawValue || (i + 1 < bytes.count && bytes[i + 1] >= 0x80) {
                // A space that a combining mark may join is left to `clusterToken()`.
                break
            }
            i &+= 1
        }
        guard i > index else { return }
        // Spaces and dashes are one column each.
        let (nanos, overflow) = frames.multipliedReportingOverflow(by: frameNanos)
        let (sum, overflow2) = cursor.addingReportingOverflow(nanos)
        if overflow || overflow2 || sum > Int64.max / 4 {
            // Find the frame that overflowed, for its column.
            while index < i {
                column += 1
                if bytes[index] == MarbleSymbol.frame.rawValue { advanceCursor(by: frameNanos) }
                index += 1
            }
            return
        }
        cursor = sum
        column += i - index
        index = i
    }

    /// A value of one grapheme cluster at `index`: non-ASCII, or ASCII joined with what follows
    /// (`e` + U+0301, `\r\n`); `nil` for an ASCII byte that stands alone and keeps its meaning.
    private mutating func clusterToken() -> Token? {
        let byte = bytes[index]
        let next = index + 1 < bytes.count ? bytes[index + 1] : 0
        guard byte >= 0x80 || next >= 0x80 || (byte == 0x0D && next == 0x0A) else { return nil }
        let position = diagram.utf8.index(diagram.utf8.startIndex, offsetBy: index)
        let character = diagram[position...].first!
        guard byte >= 0x80 || character.utf8.count > 1 else { return nil }
        let start = index
        index += character.utf8.count
        return Token(value: start, index, column: column)
    }

    /// Applies a time progression (`10ms`) starting at `index`; false when there is none. A
    /// digit-led token ending in letters that is not one (`10xs`) is an error.
    private mutating func applyTimeProgression() throws(MarbleSyntaxError) -> Bool {
        guard let (length, nanos) = timeProgression(at: index) else {
            if let typo = mistypedTimeProgression(at: index) { throw error(.invalidTimeProgression(typo), at: column) }
            return false
        }
        guard nanos >= 0 else {
            throw error(.timeProgressionTooLong(String(decoding: bytes[index..<index + length], as: UTF8.self)), at: column)
        }
        if groupStart != nil && groupIsCompact { throw error(.timeInCompactGroup, at: column) }
        advanceCursor(by: nanos)
        column += length - 1
        index += length
        return true
    }

    /// `(` and `[` open a group (a `(` group takes one frame); `)` and `]` close it.
    private mutating func applyGroup(_ symbol: MarbleSymbol) throws(MarbleSyntaxError) {
        if symbol == .groupOpen || symbol == .compactOpen {
            if groupStart != nil { throw error(.nestedGroup, at: column) }
            groupStart = cursor
            groupIsCompact = symbol == .compactOpen
            groupColumn = column
            groupEvents = 0
            if symbol == .groupOpen { advanceCursor(by: frameNanos) }
            return
        }
        guard let start = groupStart, groupIsCompact == (symbol == .compactClose) else { throw error(.unopenedGroup, at: column) }
        if groupEvents == 0 { throw error(.emptyGroup, at: groupColumn) }
        groupStart = nil
        if symbol == .compactClose { cursor = start }
        advanceCursor(by: frameNanos)
    }

    /// A `'quoted value'` whose opening quote was just read; `\` escapes the next byte.
    private mutating func quotedToken() throws(MarbleSyntaxError) -> Token {
        let open = column
        let textStart = index
        var textEnd: Int?
        defer { column = open + String(decoding: UnsafeBufferPointer(rebasing: bytes[textStart..<index]), as: UTF8.self).count }
        while index < bytes.count {
            let b = bytes[index]
            index += 1
            if b == 0x5C, index < bytes.count {
                index += 1
                continue
            }
            if b == MarbleSymbol.quote.rawValue {
                textEnd = index - 1
                break
            }
        }
        guard let textEnd else { throw error(.unterminatedQuote, at: open) }
        if textEnd == textStart { throw error(.emptyQuote, at: open) }
        return Token(value: textStart, textEnd, quoted: true, column: open)
    }

    /// Fails on an unclosed group.
    func finish() throws(MarbleSyntaxError) {
        if let overflowColumn { throw error(.timeOverflow, at: overflowColumn) }
        if groupStart != nil { throw error(.unclosedGroup, at: groupColumn) }
    }

    /// A token of digits (and a fraction) then letters only, up to a space or the end, that is
    /// not a time progression (`10xs`, `5sec`): almost surely a mistyped one.
    private func mistypedTimeProgression(at start: Int) -> String? {
        var i = start
        while i < bytes.count, (bytes[i] >= 0x30 && bytes[i] <= 0x39) || bytes[i] == 0x2E { i += 1 }
        let lettersStart = i
        while i < bytes.count, (bytes[i] | 0x20) >= 0x61 && (bytes[i] | 0x20) <= 0x7A { i += 1 }
        guard i > lettersStart, i == bytes.count || bytes[i] == MarbleSymbol.space.rawValue else { return nil }
        guard timeProgression(at: start) == nil else { return nil }
        return String(decoding: bytes[start..<i], as: UTF8.self)
    }

    /// Recognizes `N(.N)?(ms|s|m)` followed by a space or the end; returns its length in bytes
    /// and duration in nanoseconds.
    private func timeProgression(at start: Int) -> (Int, Int64)? {
        var i = start
        var integer: Int64 = 0
        var fraction: Int64 = 0
        var fractionScale: Int64 = 1
        while i < bytes.count, bytes[i] >= 0x30 && bytes[i] <= 0x39 {
            // Sticky -1 once the digits no longer fit.
            if integer >= 0 {
                let (times10, o1) = integer.multipliedReportingOverflow(by: 10)
                let (sum, o2) = times10.addingReportingOverflow(Int64(bytes[i] - 0x30))
                integer = o1 || o2 ? -1 : sum
            }
            i += 1
        }
        if i < bytes.count, bytes[i] == 0x2E {  // .
            i += 1
            let digitsStart = i
            while i < bytes.count, bytes[i] >= 0x30 && bytes[i] <= 0x39 {
                if fractionScale < 1_000_000_000 {
                    fraction = fraction * 10 + Int64(bytes[i] - 0x30)
                    fractionScale *= 10
                }
                i += 1
            }
            if i == digitsStart { return nil }
        }
        let unitNanos: Int64
        if i + 1 < bytes.count, bytes[i] == 0x6D, bytes[i + 1] == 0x73 {  // ms
            unitNanos = 1_000_000
            i += 2
        } else if i < bytes.count, bytes[i] == 0x73 {  // s
            unitNanos = 1_000_000_000
            i += 1
        } else if i < bytes.count, bytes[i] == 0x6D {  // m
            unitNanos = 60_000_000_000
            i += 1
        } else {
            return nil
        }
        guard i == bytes.count || bytes[i] == MarbleSymbol.space.rawValue else { return nil }
        // -1 marks a duration that does not fit in 64-bit nanoseconds (about 292 years).
        let (whole, overflow1) = integer.multipliedReportingOverflow(by: unitNanos)
        // fraction / fractionScale < 1, so the product divided back fits in 64 bits.
        let product = fraction.multipliedFullWidth(by: unitNanos)
        let part = fractionScale.dividingFullWidth((high: product.high, low: product.low)).quotient
        let (total, overflow2) = whole.addingReportingOverflow(part)
        if overflow1 || overflow2 || integer < 0 || total > Int64.max / 4 { return (i - start, -1) }
        return (i - start, total)
    }
}
