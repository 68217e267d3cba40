/// Writes timed events as the canonical diagram, the inverse of ``MarbleParser``.
///
/// Gaps of up to ``maxDashes`` whole frames print as `-`, longer or fractional ones as a time
/// progression (` 250ms `). Same-time events print as a `(…)` group when it fits before the
/// next event, else as a compact `[…]` group. Values that are one plain character print bare;
/// others are quoted. Times must not be negative.
public struct MarblePrinter: Sendable {
    /// The virtual time one frame stands for.
    public let frame: Duration
    /// The longest gap written with dashes.
    public var maxDashes: Int = 80
    let frameNanos: Int64

    /// Creates a printer; one frame is 1 ms unless told otherwise.
    public init(frame: Duration = .milliseconds(1)) {
        self.frame = frame
        self.frameNanos = VirtualTimeScheduler.nanos(frame)
    }

    /// A printed diagram and the column (0-based) at which each event time starts.
    public struct Printed: Sendable {
        /// The diagram.
        public var text: String
        /// Event time → column of its first character.
        public var columns: [(time: Duration, column: Int)]
    }

    /// Prints events whose values are shown by `label` (the text of one value, unquoted).
    public func print<Value>(_ events: [Recorded<Event<Value>>], label: (Value) -> String) -> Printed {
        let printed = printAligned([events], label: label)
        return Printed(text: printed.texts[0], columns: printed.columns)
    }

    /// Prints events whose values are strings.
    public func print(_ events: [Recorded<Event<String>>]) -> String {
        print(events, label: { $0 }).text
    }

    /// Prints a subscription log as a subscription diagram; long or fractional stretches print
    /// as time progressions (`^ 10m !`), so a ten-minute subscription is a short line.
    public func print(_ log: SubscriptionLog) -> String {
        // `^` costs a frame and `!` none, so `^!` would put them a frame apart: `(^!)` when equal.
        let sub = max(VirtualTimeScheduler.nanos(log.subscribed), 0)
        guard let end = log.unsubscribed.map(VirtualTimeScheduler.nanos) else { return stretch(sub) + "^" }
        let (afterMarker, overflow) = sub.addingReportingOverflow(frameNanos)
        // An unsubscription less than a frame after the subscription cannot be drawn apart from it.
        if end <= sub || overflow || end < afterMarker { return stretch(sub) + "(^!)" }
        let gap = stretch(end &- afterMarker)
        return stretch(sub) + "^" + (gap.first?.isNumber == true ? " " : "") + gap + "!"
    }

    /// Dashes for up to ``maxDashes`` whole frames, else a time progression and a space.
    private func stretch(_ nanos: Int64) -> String {
        guard nanos > 0 else { return "" }
        if nanos % frameNanos == 0 && nanos / frameNanos <= maxDashes { return String(repeating: "-", count: Int(nanos / frameNanos)) }
        return Self.formatDuration(nanos) + " "
    }

    fileprivate func token(_ event: PrintedEvent) -> String {
        switch event {
        case .completed: return "|"
        case .error: return "#"
        case .next(let text):
            guard MarbleSymbol.needsQuotes(text) else { return text }
            var quoted = "'"
            for c in text {
                if c == "'" || c == "\\" { quoted.append("\\") }
                quoted.append(c)
            }
            return quoted + "'"
        }
    }

    /// `1500000ns` → `1.5ms`; whole seconds and minutes use `s` and `m`.
    static func formatDuration(_ nanos: Int64) -> String {
        if nanos % 60_000_000_000 == 0 { return "\(nanos / 60_000_000_000)m" }
        if nanos % 1_000_000_000 == 0 { return "\(nanos / 1_000_000_000)s" }
        let whole = nanos / 1_000_000
        var fraction = nanos % 1_000_000
        if fraction == 0 { return "\(whole)ms" }
        var digits = 6
        while fraction % 10 == 0 {
            fraction /= 10
            digits -= 1
        }
        let padded = String(repeating: "0", count: digits - String(fraction).count) + String(fraction)
        return "\(whole).\(padded)ms"
    }
}

extension MarblePrinter {
    /// Prints several timelines so that events at the same time start in the same column:
    /// each line is padded with spaces, which the language ignores, so every printed line
    /// still parses to its events.
    public func printAligned<Value>(_ lines: [[Recorded<Event<Value>>]], label: (Value) -> String) -> (
        texts: [String], columns: [(time: Duration, column: Int)]
    ) {
        // Values become their labels first: the rest is not generic, so it runs specialized
        // whatever module calls it.
        printAligned(
            lines.map { events in
                events.map { recorded in
                    let event: PrintedEvent
                    switch recorded.value {
                    case .next(let value): event = .next(label(value))
                    case .completed: event = .completed
                    case .error: event = .error
                    }
                    return (VirtualTimeScheduler.nanos(recorded.time), event)
                }
            })
    }

    private func printAligned(_ lines: [[(time: Int64, event: PrintedEvent)]]) -> (
        texts: [String], columns: [(time: Duration, column: Int)]
    ) {
        var state = AlignedLines(lines)
        // Labelled as returned: an unlabelled array would be converted by a dynamic cast of
        // each element.
        var columns: [(time: Duration, column: Int)] = []
        columns.reserveCapacity(lines.first?.count ?? 0)
        while let time = state.nextTime() {
            var column = 0
            for line in lines.indices {
                state.gaps[line] = state.gap(line: line, to: time, printer: self)
                column = Swift.max(column, state.widths[line] + state.gaps[line].width)
            }
            for line in lines.indices { state.append(state.gaps[line], line: line, paddedTo: column) }
            columns.append((.nanoseconds(time), column))
            for line in lines.indices { appendEvents(at: time, line: line, to: &state) }
        }
        return (state.outs.map { String(decoding: $0, as: UTF8.self) }, columns)
    }

    /// The events of one line at `time`: one token, or a group (`(ab)` when the frames it
    /// takes are free, else the compact `[ab]`).
    private func appendEvents(at time: Int64, line: Int, to state: inout AlignedLines) {
        let events = state.sortedLines[line]
        let start = state.positions[line]
        var j = start
        while j < events.count, events[j].time == time { j += 1 }
        guard j > start else { return }
        let oneFrameLater = time.addingReportingOverflow(frameNanos).overflow ? Int64.max : time + frameNanos
        if j == start + 1 {
            var text = token(events[start].event)
            if events[start].event.isTerminal { state.ended[line] = true }
            let previous = state.outs[line].last
            if readsAsTimeProgression(text, after: previous, next: j < events.count ? events[j] : nil, at: time) {
                text = "'\(text)'"
            }
            state.write(text, line: line)
            state.cursors[line] = oneFrameLater
        } else {
            var tokens: [String] = []
            tokens.reserveCapacity(j - start)
            for k in start..<j {
                tokens.append(token(events[k].event))
                if events[k].event.isTerminal { state.ended[line] = true }
            }
            let (width, o1) = Int64(tokens.count + 2).multipliedReportingOverflow(by: frameNanos)
            let next = j < events.count ? events[j].time : Int64.max
            let (end, o2) = time.addingReportingOverflow(width)
            let fits = !o1 && !o2 && end <= next
            state.write(fits ? "(" : "[", line: line)
            for t in tokens { state.write(t, line: line) }
            state.write(fits ? ")" : "]", line: line)
            state.cursors[line] = fits ? end : oneFrameLater
        }
        state.positions[line] = j
    }

    /// Whether a one-digit value at the start of a token, followed at once by a value that
    /// starts with a letter, digit or `.`, would be read back as a time progression (`1s`) or
    /// a mistyped one (`7b`).
    private func readsAsTimeProgression(_ token: String, after previous: UInt8?, next: (time: Int64, event: PrintedEvent)?, at time: Int64)
        -> Bool
    {
        guard token.utf8.count == 1, let digit = token.utf8.first, digit >= 0x30 && digit <= 0x39 else { return false }
        guard previous == nil || previous == 0x20, let next, next.time == time &+ frameNanos else { return false }
        guard let first = self.token(next.event).utf8.first else { return false }
        return (first >= 0x30 && first <= 0x39) || ((first | 0x20) >= 0x61 && (first | 0x20) <= 0x7A) || first == 0x2E
    }
}

/// An event as printed: a value is its label.
private enum PrintedEvent {
    case next(String)
    case completed
    case error

    var isTerminal: Bool {
        if case .next = self { false } else { true }
    }
}

/// What brings a line from its cursor to the next event's time.
private enum Gap {
    case none
    case dashes(Int)
    /// A time progression (` 250ms `), with a leading space when the line does not end in one.
    case progression(String, leadingSpace: Bool)

    var width: Int {
        switch self {
        case .none: 0
        case .dashes(let count): count
        case .progression(let text, let leadingSpace): text.utf8.count + 1 + (leadingSpace ? 1 : 0)
        }
    }
}

/// The lines being printed by `printAligned`, as UTF-8 bytes, with where each one is in time
/// and in its events.
private struct AlignedLines {
    /// Each line's events with their times in nanoseconds, in time order (same-time events
    /// in recorded order).
    let sortedLines: [[(time: Int64, event: PrintedEvent)]]
    var outs: [[UInt8]]
    /// Characters written to each line (columns count characters, not bytes).
    var widths: [Int]
    var cursors: [Int64]
    var positions: [Int]
    /// After its `|` or `#` a line is padded with spaces: dashes would read as time going on.
    var ended: [Bool]
    /// Each line's gap before the time being printed (kept here to reuse one buffer).
    var gaps: [Gap]

    init(_ lines: [[(time: Int64, event: PrintedEvent)]]) {
        sortedLines = lines.map { events in
            var timed = events
            var sorted = true
            for i in timed.indices.dropFirst() where timed[i].time < timed[i - 1].time {
                sorted = false
                break
            }
            if !sorted {
                timed = timed.enumerated().sorted { ($0.element.time, $0.offset) < ($1.element.time, $1.offset) }.map(\.element)
            }
            return timed
        }
        outs = lines.map { events in
            var out: [UInt8] = []
            out.reserveCapacity(events.count * 2 + 8)
            return out
        }
        widths = Array(repeating: 0, count: lines.count)
        cursors = Array(repeating: 0, count: lines.count)
        positions = Array(repeating: 0, count: lines.count)
        ended = Array(repeating: false, count: lines.count)
        gaps = Array(repeating: .none, count: lines.count)
    }

    /// The earliest time not yet printed on any line.
    func nextTime() -> Int64? {
        var next: Int64?
        for line in sortedLines.indices where positions[line] < sortedLines[line].count {
            let time = sortedLines[line][positions[line]].time
            if next == nil || time < next! { next = time }
        }
        return next
    }

    /// What brings a line from its cursor to `time`: dashes, or a time progression.
    mutating func gap(line: Int, to time: Int64, printer: MarblePrinter) -> Gap {
        if ended[line] { return .none }
        let gap = time &- cursors[line]
        guard gap > 0 else { return .none }
        cursors[line] = time
        if gap % printer.frameNanos == 0 && gap / printer.frameNanos <= printer.maxDashes {
            return .dashes(Int(gap / printer.frameNanos))
        }
        return .progression(MarblePrinter.formatDuration(gap), leadingSpace: outs[line].last.map { $0 != 0x20 } ?? false)
    }

    mutating func write(_ text: String, line: Int) {
        // Most tokens are one ASCII byte.
        if text.utf8.count == 1, let byte = text.utf8.first, byte < 0x80 {
            outs[line].append(byte)
            widths[line] += 1
            return
        }
        outs[line].append(contentsOf: text.utf8)
        // One byte per character is the common case; count characters only when it is not.
        widths[line] += text.utf8.allSatisfy { $0 < 0x80 } ? text.utf8.count : text.count
    }

    mutating func pad(_ count: Int, with byte: UInt8, line: Int) {
        guard count > 0 else { return }
        outs[line].append(contentsOf: repeatElement(byte, count: count))
        widths[line] += count
    }

    /// Appends a gap, padded with spaces so the next event starts at `column`: before a dash
    /// run, after a time progression (whose leading space must stay next to it).
    mutating func append(_ gap: Gap, line: Int, paddedTo column: Int) {
        let padding = column - widths[line] - gap.width
        switch gap {
        case .progression(let text, let leadingSpace):
            if leadingSpace { pad(1, with: 0x20, line: line) }
            write(text, line: line)
            pad(1 + padding, with: 0x20, line: line)
        case .dashes(let count):
            pad(padding, with: 0x20, line: line)
            pad(count, with: 0x2D, line: line)
        case .none:
            pad(padding, with: 0x20, line: line)
        }
    }
}
