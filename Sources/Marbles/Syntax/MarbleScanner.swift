/// Splits a diagram into tokens and keeps the time cursor and group state; shared by the
/// observable, subscription and time parsers so that all three count frames alike.
///
/// The common bytes (frames, spaces, one-byte values and symbols) are read by ``next()``, which
/// is inlined into each parser's loop and keeps its position in locals; the rare ones (clusters,
/// time progressions, groups, quotes, errors) go through out-of-line methods.
@usableFromInline
struct Scanner {
    /// A symbol or a value; a value is a range of the diagram's bytes (no string is made until
    /// an event needs its key).
    @usableFromInline
    struct Token {
        // Words first, bytes last: 26 bytes (40 with `symbol` first).
        /// A value's bytes: one ASCII byte, a grapheme cluster, or a quoted text without its
        /// quotes (escapes still in).
        @usableFromInline var start = 0
        @usableFromInline var end = 0
        @usableFromInline var column: Int
        /// The symbol, or `nil` for a value.
        @usableFromInline var symbol: MarbleDiagram.Symbol?
        @usableFromInline var isQuoted = false

        @inlinable
        init(symbol: MarbleDiagram.Symbol, column: Int) {
            self.symbol = symbol
            self.column = column
        }

        @inlinable
        init(value start: Int, _ end: Int, quoted: Bool = false, column: Int) {
            self.start = start
            self.end = end
            self.isQuoted = quoted
            self.column = column
        }
    }

    /// The diagram's UTF-8, valid for the scan (see ``withBytes(of:_:)``). The scanner keeps no
    /// reference to the diagram's `String` (it would be retained, released and copied with the
    /// scanner); an error rebuilds the text from these bytes, which round-trip exactly.
    @usableFromInline let bytes: UnsafeBufferPointer<UInt8>
    @usableFromInline let frameNanos: Int64
    @usableFromInline var index = 0
    @usableFromInline var column = 0
    @usableFromInline var cursor: Int64 = 0
    /// Where the time first overflowed; reported by the next call to `next()` or `finish()`.
    @usableFromInline var overflowColumn: Int?
    @usableFromInline var groupStart: Int64?
    @usableFromInline var groupIsCompact = false
    @usableFromInline var groupColumn = 0
    @usableFromInline var groupEvents = 0
    /// The time of `^` in an observable diagram.
    @usableFromInline var zero: Int64?
    /// Whether a `|` or `#` was read (an expected diagram allows nothing after it).
    @usableFromInline var terminated = false
    /// ``MarbleDiagram/Parser/asciiKeys``, read once per scan (a global's lazy-initialization check per
    /// value showed in profiles); a pointer, so the scan does not retain and release the table.
    @usableFromInline let keys = MarbleDiagram.Parser.asciiKeys

    @inlinable
    init(bytes: UnsafeBufferPointer<UInt8>, frameNanos: Int64) {
        self.bytes = bytes
        self.frameNanos = frameNanos
    }

    /// Runs `body` on the diagram's contiguous UTF-8 (a native string's own storage, no copy).
    @inlinable
    static func withBytes<R>(
        of diagram: String, _ body: (UnsafeBufferPointer<UInt8>) throws(MarbleDiagram.SyntaxError) -> R
    ) throws(MarbleDiagram.SyntaxError) -> R {
        var diagram = diagram
        let result: Result<R, MarbleDiagram.SyntaxError> = diagram.withUTF8 { bytes in
            do throws(MarbleDiagram.SyntaxError) { return .success(try body(bytes)) } catch { return .failure(error) }
        }
        return try result.get()
    }

    /// The time an event read now is stamped with.
    @inlinable
    var eventTime: Int64 { groupStart ?? cursor }

    /// Counts an event or marker in the open group (a group with none is an error).
    @inlinable
    mutating func noteEvent() { groupEvents &+= 1 }

    /// Advances one frame for an event or marker; inside a compact group, the group's single
    /// frame is charged when it closes instead.
    @inlinable
    mutating func advanceOneFrame() {
        if !(groupStart != nil && groupIsCompact) { advanceCursor(by: frameNanos) }
    }

    /// Moves the cursor; past a quarter of `Int64` (room for offsets and hot negatives) the
    /// overflow is remembered and reported by the next call to `next()` or `finish()`.
    @inlinable
    mutating func advanceCursor(by nanos: Int64) {
        if !Self.add(nanos, to: &cursor), overflowColumn == nil { overflowColumn = max(column, 1) }
    }

    /// Adds `nanos` to `cursor` unless the sum passes a quarter of `Int64`; false when it would.
    @inlinable @inline(__always)
    static func add(_ nanos: Int64, to cursor: inout Int64) -> Bool {
        let (sum, overflow) = cursor.addingReportingOverflow(nanos)
        if overflow || sum > Int64.max / 4 { return false }
        cursor = sum
        return true
    }

    /// The observable-diagram grammar for one token: handles `^` and rejects `!`, `^` where it
    /// may not be, and events after the end of an expected diagram; true for an event (`|`,
    /// `#` or a value) the caller records and then reports with ``eventDone()``.
    @inlinable
    mutating func acceptEvent(_ token: Token, kind: MarbleDiagram.Kind) throws(MarbleDiagram.SyntaxError) -> Bool {
        switch token.symbol {
        case nil:
            if kind == .expected && terminated { throw fail(.eventAfterTermination, at: token.column) }
            return true
        case .complete, .error:
            if kind == .expected && terminated { throw fail(.eventAfterTermination, at: token.column) }
            terminated = true
            return true
        default:
            try acceptMarker(token, kind: kind)
            return false
        }
    }

    /// Counts an event or marker in its group and moves past its frame.
    @inlinable
    mutating func eventDone() {
        noteEvent()
        advanceOneFrame()
    }

    /// `^` (frame 0 of a hot or expected diagram) or `!` (only in subscription diagrams).
    @usableFromInline
    mutating func acceptMarker(_ token: Token, kind: MarbleDiagram.Kind) throws(MarbleDiagram.SyntaxError) {
        switch token.symbol {
        case .zero:
            if kind == .cold { throw fail(.zeroInColdDiagram, at: token.column) }
            if groupStart != nil { throw fail(.zeroInGroup, at: token.column) }
            if zero != nil { throw fail(.secondZero, at: token.column) }
            zero = cursor
            advanceOneFrame()
        default:
            throw fail(.unsubscribeOutsideSubscriptionDiagram, at: token.column)
        }
    }

    /// A value token's key.
    @inlinable
    func key(of token: Token) -> String {
        if !token.isQuoted && token.end &- token.start == 1 {
            let byte = bytes[token.start]
            if byte < 0x80 { return keys[Int(byte)] }
        }
        return Self.longKey(of: token, in: bytes)
    }

    /// A quoted or multi-byte value's key.
    // Static: a mutating caller that called a method on `self` would copy the whole scanner.
    @usableFromInline
    static func longKey(of token: Token, in bytes: UnsafeBufferPointer<UInt8>) -> String {
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
        return String(decoding: UnsafeBufferPointer(rebasing: bytes[token.start..<token.end]), as: UTF8.self)
    }

    /// The token as written (for error messages).
    func character(of token: Token) -> Character {
        if let symbol = token.symbol { return symbol.character }
        return key(of: token).first ?? "'"
    }

    @usableFromInline
    func fail(_ kind: MarbleDiagram.SyntaxError.Kind, at column: Int) -> MarbleDiagram.SyntaxError {
        MarbleDiagram.SyntaxError(kind, diagram: String(decoding: bytes, as: UTF8.self), column: column)
    }

    /// The next event or marker token; spaces, frames, groups and time progressions are
    /// applied to the cursor here and not returned.
    @inlinable @inline(__always)
    mutating func next() throws(MarbleDiagram.SyntaxError) -> Token? {
        if let overflowColumn { throw fail(.timeOverflow, at: overflowColumn) }
        guard let base = bytes.baseAddress else { return nil }
        let count = bytes.count
        // The hot state lives in locals, stored back before any out-of-line call and on exit.
        var i = index
        var column = self.column
        var cursor = self.cursor
        var inCompactGroup = groupStart != nil && groupIsCompact
        defer {
            self.index = i
            self.column = column
            self.cursor = cursor
        }
        while i < count {
            let byte = base[i]
            column &+= 1
            if byte == MarbleDiagram.Symbol.frame.rawValue && !inCompactGroup {
                if !Self.add(frameNanos, to: &cursor), overflowColumn == nil { overflowColumn = column }
                i &+= 1
                continue
            }
            let next = i &+ 1 < count ? base[i &+ 1] : 0
            // A space that a combining mark may join is left to the rare path.
            if byte == MarbleDiagram.Symbol.space.rawValue && next < 0x80 {
                i &+= 1
                continue
            }
            let isDigit = byte &- 0x30 < 10
            if byte >= 0x80 || next >= 0x80 || byte == 0x0D || (isDigit && (i == 0 || base[i &- 1] == MarbleDiagram.Symbol.space.rawValue))
            {
                (self.index, self.column, self.cursor) = (i, column, cursor)
                let rare = try rareToken()
                (i, column, cursor) = (self.index, self.column, self.cursor)
                switch rare {
                case .token(let token): return token
                case .applied: continue
                case .ordinary: break
                }
            }
            i &+= 1
            guard MarbleDiagram.Symbol.isSymbol(byte), let symbol = MarbleDiagram.Symbol(rawValue: byte) else {
                return Token(value: i &- 1, i, column: column)
            }
            switch symbol {
            case .complete, .error, .zero, .unsubscribe:
                return Token(symbol: symbol, column: column)
            case .space:
                continue
            default:
                if applyPlainGroup(symbol, column: column, cursor: &cursor) { continue }
                (self.index, self.column, self.cursor) = (i, column, cursor)
                let quoted = try groupOrQuote(symbol)
                (i, column, cursor) = (self.index, self.column, self.cursor)
                if let quoted { return quoted }
                inCompactGroup = groupStart != nil && groupIsCompact
            }
        }
        return nil
    }

    /// Applies a valid `(` or `)` on the caller's cursor; false for any other symbol or an
    /// invalid bracket, which ``groupOrQuote(_:)`` handles (and reports).
    @inlinable @inline(__always)
    mutating func applyPlainGroup(_ symbol: MarbleDiagram.Symbol, column: Int, cursor: inout Int64) -> Bool {
        switch symbol {
        case .groupOpen where groupStart == nil:
            groupStart = cursor
            groupIsCompact = false
            groupColumn = column
            groupEvents = 0
        case .groupClose where groupStart != nil && !groupIsCompact && groupEvents > 0:
            groupStart = nil
        default:
            return false
        }
        if !Self.add(frameNanos, to: &cursor), overflowColumn == nil { overflowColumn = column }
        return true
    }

    /// What the rare path made of the byte at `index`.
    @usableFromInline
    enum Rare {
        /// A value token (a grapheme cluster).
        case token(Token)
        /// A time progression, applied to the cursor.
        case applied
        /// Nothing: the byte is read as usual.
        case ordinary
    }

    /// A non-ASCII cluster, an ASCII byte a cluster joins (`e` + U+0301, `\r\n`) or a time
    /// progression at `index` (`column` already counts its first character).
    @usableFromInline
    mutating func rareToken() throws(MarbleDiagram.SyntaxError) -> Rare {
        if let cluster = clusterToken() { return .token(cluster) }
        let byte = bytes[index]
        let atTokenStart = index == 0 || bytes[index - 1] == MarbleDiagram.Symbol.space.rawValue
        if atTokenStart, byte >= 0x30 && byte <= 0x39, try applyTimeProgression() { return .applied }
        return .ordinary
    }

    /// A group bracket or a quote just read (`index` is past it): applies the group, or reads
    /// the quoted value; a frame here is inside a compact group, an error.
    @usableFromInline
    mutating func groupOrQuote(_ symbol: MarbleDiagram.Symbol) throws(MarbleDiagram.SyntaxError) -> Token? {
        switch symbol {
        case .frame:
            throw fail(.timeInCompactGroup, at: column)
        case .quote:
            return try quotedToken()
        default:
            try applyGroup(symbol)
            return nil
        }
    }

    /// A value of one grapheme cluster at `index`: non-ASCII, or ASCII joined with what follows
    /// (`e` + U+0301, `\r\n`); `nil` for an ASCII byte that stands alone and keeps its meaning.
    private mutating func clusterToken() -> Token? {
        let byte = bytes[index]
        let next = index + 1 < bytes.count ? bytes[index + 1] : 0
        guard byte >= 0x80 || next >= 0x80 || (byte == 0x0D && next == 0x0A) else { return nil }
        let character = Self.character(startingAt: index, in: bytes)
        guard byte >= 0x80 || character.utf8.count > 1 else { return nil }
        let start = index
        index += character.utf8.count
        return Token(value: start, index, column: column)
    }

    /// The grapheme cluster that starts at byte `start`: read from a window of the bytes that
    /// grows until the cluster ends inside it (a window cut mid-cluster would cut it short).
    private static func character(startingAt start: Int, in bytes: UnsafeBufferPointer<UInt8>) -> Character {
        var window = 32
        while true {
            var end = min(start + window, bytes.count)
            // A window that cuts a scalar would decode its bytes as U+FFFD, another cluster.
            while end < bytes.count && bytes[end] & 0xC0 == 0x80 { end -= 1 }
            let text = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<end]), as: UTF8.self)
            let character = text.first!
            if end == bytes.count || character.utf8.count < text.utf8.count { return character }
            window *= 2
        }
    }

    /// Applies a time progression (`10ms`) starting at `index`; false when there is none. A
    /// digit-led token ending in letters that is not one (`10xs`) is an error.
    private mutating func applyTimeProgression() throws(MarbleDiagram.SyntaxError) -> Bool {
        guard let (length, nanos) = timeProgression(at: index) else {
            if let typo = mistypedTimeProgression(at: index) { throw fail(.invalidTimeProgression(typo), at: column) }
            return false
        }
        guard nanos >= 0 else {
            throw fail(.timeProgressionTooLong(String(decoding: bytes[index..<index + length], as: UTF8.self)), at: column)
        }
        if groupStart != nil && groupIsCompact { throw fail(.timeInCompactGroup, at: column) }
        advanceCursor(by: nanos)
        column += length - 1
        index += length
        return true
    }

    /// `(` and `[` open a group (a `(` group takes one frame); `)` and `]` close it.
    private mutating func applyGroup(_ symbol: MarbleDiagram.Symbol) throws(MarbleDiagram.SyntaxError) {
        if symbol == .groupOpen || symbol == .compactOpen {
            if groupStart != nil { throw fail(.nestedGroup, at: column) }
            groupStart = cursor
            groupIsCompact = symbol == .compactOpen
            groupColumn = column
            groupEvents = 0
            if symbol == .groupOpen { advanceCursor(by: frameNanos) }
            return
        }
        guard let start = groupStart, groupIsCompact == (symbol == .compactClose) else { throw fail(.unopenedGroup, at: column) }
        if groupEvents == 0 { throw fail(.emptyGroup, at: groupColumn) }
        groupStart = nil
        if symbol == .compactClose { cursor = start }
        advanceCursor(by: frameNanos)
    }

    /// A `'quoted value'` whose opening quote was just read; `\` escapes the next byte.
    private mutating func quotedToken() throws(MarbleDiagram.SyntaxError) -> Token {
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
            if b == MarbleDiagram.Symbol.quote.rawValue {
                textEnd = index - 1
                break
            }
        }
        guard let textEnd else { throw fail(.unterminatedQuote, at: open) }
        if textEnd == textStart { throw fail(.emptyQuote, at: open) }
        return Token(value: textStart, textEnd, quoted: true, column: open)
    }

    /// Fails on an unclosed group or a time overflow.
    // Inlinable with the failure out of line: an out-of-line call copied the whole scanner.
    @inlinable
    func finish() throws(MarbleDiagram.SyntaxError) {
        if overflowColumn != nil || groupStart != nil { throw unfinished() }
    }

    @usableFromInline
    func unfinished() -> MarbleDiagram.SyntaxError {
        if let overflowColumn { return fail(.timeOverflow, at: overflowColumn) }
        return fail(.unclosedGroup, at: groupColumn)
    }

    /// A token of digits (and a fraction) then letters only, up to a space or the end, that is
    /// not a time progression (`10xs`, `5sec`): almost surely a mistyped one.
    private func mistypedTimeProgression(at start: Int) -> String? {
        var i = start
        while i < bytes.count, (bytes[i] >= 0x30 && bytes[i] <= 0x39) || bytes[i] == 0x2E { i += 1 }
        let lettersStart = i
        while i < bytes.count, (bytes[i] | 0x20) >= 0x61 && (bytes[i] | 0x20) <= 0x7A { i += 1 }
        guard i > lettersStart, i == bytes.count || bytes[i] == MarbleDiagram.Symbol.space.rawValue else { return nil }
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
        guard i == bytes.count || bytes[i] == MarbleDiagram.Symbol.space.rawValue else { return nil }
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
