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

    fileprivate func token<Value>(_ event: Event<Value>, label: (Value) -> String) -> String {
        switch event {
        case .completed: return "|"
        case .error: return "#"
        case .next(let value):
            let text = label(value)
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
        var state = AlignedLines(lines)
        let times = Array(Set(lines.joined().map { VirtualTimeScheduler.nanos($0.time) })).sorted()
        var columns: [(Duration, Int)] = []
        for time in times {
            let gaps = lines.indices.map { state.gap(line: $0, to: time, printer: self) }
            let column = lines.indices.map { state.outs[$0].count + gaps[$0].count }.max() ?? 0
            for line in lines.indices { state.append(gaps[line], line: line, paddedTo: column) }
            columns.append((.nanoseconds(time), column))
            for line in lines.indices { appendEvents(at: time, line: line, to: &state, label: label) }
        }
        return (state.outs.map { String($0) }, columns)
    }

    /// The events of one line at `time`: one token, or a group (`(ab)` when the frames it
    /// takes are free, else the compact `[ab]`).
    private func appendEvents<Value>(at time: Int64, line: Int, to state: inout AlignedLines<Value>, label: (Value) -> String) {
        let events = state.sortedLines[line]
        var j = state.positions[line]
        while j < events.count, VirtualTimeScheduler.nanos(events[j].time) == time { j += 1 }
        let group = events[state.positions[line]..<j]
        guard !group.isEmpty else { return }
        var tokens = group.map { token($0.value, label: label) }
        if group.contains(where: { $0.value.isTerminal }) { state.ended[line] = true }
        let oneFrameLater = time.addingReportingOverflow(frameNanos).overflow ? Int64.max : time + frameNanos
        if tokens.count == 1 {
            if readsAsTimeProgression(tokens[0], after: state.outs[line].last, next: events[j...].first, at: time, label: label) {
                tokens[0] = "'\(tokens[0])'"
            }
            state.outs[line].append(contentsOf: tokens[0])
            state.cursors[line] = oneFrameLater
        } else {
            let (width, o1) = Int64(tokens.count + 2).multipliedReportingOverflow(by: frameNanos)
            let next = j < events.count ? VirtualTimeScheduler.nanos(events[j].time) : Int64.max
            let (end, o2) = time.addingReportingOverflow(width)
            let fits = !o1 && !o2 && end <= next
            state.outs[line].append(fits ? "(" : "[")
            for t in tokens { state.outs[line].append(contentsOf: t) }
            state.outs[line].append(fits ? ")" : "]")
            state.cursors[line] = fits ? end : oneFrameLater
        }
        state.positions[line] = j
    }

    /// Whether a one-digit value at the start of a token, followed at once by a value that
    /// starts with a letter, digit or `.`, would be read back as a time progression (`1s`) or
    /// a mistyped one (`7b`).
    private func readsAsTimeProgression<Value>(
        _ token: String, after previous: Character?, next: Recorded<Event<Value>>?, at time: Int64, label: (Value) -> String
    ) -> Bool {
        guard token.count == 1, token.first?.isASCII == true, token.first?.isNumber == true else { return false }
        guard previous == nil || previous == " ", let next, VirtualTimeScheduler.nanos(next.time) == time &+ frameNanos else {
            return false
        }
        guard let first = self.token(next.value, label: label).first else { return false }
        return (first.isASCII && (first.isLetter || first.isNumber)) || first == "."
    }
}

/// The lines being printed by `printAligned`, with where each one is in time and in its events.
private struct AlignedLines<Value> {
    let sortedLines: [[Recorded<Event<Value>>]]
    var outs: [[Character]]
    var cursors: [Int64]
    var positions: [Int]
    /// After its `|` or `#` a line is padded with spaces: dashes would read as time going on.
    var ended: [Bool]

    init(_ lines: [[Recorded<Event<Value>>]]) {
        sortedLines = lines.map { events in
            events.enumerated().sorted { ($0.element.time, $0.offset) < ($1.element.time, $1.offset) }.map(\.element)
        }
        outs = Array(repeating: [], count: lines.count)
        cursors = Array(repeating: 0, count: lines.count)
        positions = Array(repeating: 0, count: lines.count)
        ended = Array(repeating: false, count: lines.count)
    }

    /// The text that brings a line from its cursor to `time`: dashes, or a time progression.
    mutating func gap(line: Int, to time: Int64, printer: MarblePrinter) -> [Character] {
        if ended[line] { return [] }
        let gap = time &- cursors[line]
        guard gap > 0 else { return [] }
        cursors[line] = time
        if gap % printer.frameNanos == 0 && gap / printer.frameNanos <= printer.maxDashes {
            return Array(repeating: "-", count: Int(gap / printer.frameNanos))
        }
        var text: [Character] = []
        if let last = outs[line].last, last != " " { text.append(" ") }
        text.append(contentsOf: MarblePrinter.formatDuration(gap))
        text.append(" ")
        return text
    }

    /// Appends a gap, padded with spaces so the next event starts at `column`: before a dash
    /// run, after a time progression (whose leading space must stay next to it).
    mutating func append(_ gap: [Character], line: Int, paddedTo column: Int) {
        let padding = column - outs[line].count - gap.count
        if gap.first == " " || (gap.last == " " && !gap.isEmpty) {
            outs[line].append(contentsOf: gap)
            outs[line].append(contentsOf: repeatElement(" ", count: padding))
        } else {
            outs[line].append(contentsOf: repeatElement(" ", count: padding))
            outs[line].append(contentsOf: gap)
        }
    }
}
