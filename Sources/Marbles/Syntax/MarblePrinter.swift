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
    private let frameNanos: Int64

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
        let sortedLines = lines.map { events in
            events.enumerated().sorted { ($0.element.time, $0.offset) < ($1.element.time, $1.offset) }.map(\.element)
        }
        let times = Array(Set(sortedLines.joined().map { VirtualTimeScheduler.nanos($0.time) })).sorted()
        var outs = [[Character]](repeating: [], count: lines.count)
        var cursors = [Int64](repeating: 0, count: lines.count)
        var positions = [Int](repeating: 0, count: lines.count)
        var columns: [(Duration, Int)] = []
        // After its `|` or `#` a line is padded with spaces: dashes would read as time going on.
        var ended = [Bool](repeating: false, count: lines.count)
        for time in times {
            var gaps: [[Character]] = []
            for line in lines.indices {
                if ended[line] {
                    gaps.append([])
                    continue
                }
                let gap = time &- cursors[line]
                var text: [Character] = []
                if gap > 0 {
                    if gap % frameNanos == 0 && gap / frameNanos <= maxDashes {
                        text = Array(repeating: "-", count: Int(gap / frameNanos))
                    } else {
                        if let last = outs[line].last, last != " " { text.append(" ") }
                        text.append(contentsOf: Self.formatDuration(gap))
                        text.append(" ")
                    }
                    cursors[line] = time
                }
                gaps.append(text)
            }
            let column = lines.indices.map { outs[$0].count + gaps[$0].count }.max() ?? 0
            for line in lines.indices {
                let padding = column - outs[line].count - gaps[line].count
                // Padding goes before a dash run, after a time progression (whose leading space
                // must stay next to it).
                if gaps[line].first == " " || (gaps[line].last == " " && !gaps[line].isEmpty) {
                    outs[line].append(contentsOf: gaps[line])
                    outs[line].append(contentsOf: repeatElement(" ", count: padding))
                } else {
                    outs[line].append(contentsOf: repeatElement(" ", count: padding))
                    outs[line].append(contentsOf: gaps[line])
                }
            }
            columns.append((.nanoseconds(time), column))
            for line in lines.indices {
                let events = sortedLines[line]
                var j = positions[line]
                while j < events.count, VirtualTimeScheduler.nanos(events[j].time) == time { j += 1 }
                let group = events[positions[line]..<j]
                guard !group.isEmpty else { continue }
                var tokens = group.map { token($0.value, label: label) }
                if group.contains(where: { $0.value.isTerminal }) { ended[line] = true }
                if tokens.count == 1 {
                    if readsAsTimeProgression(tokens[0], after: outs[line].last, next: events[j...].first, at: time, label: label) {
                        tokens[0] = "'\(tokens[0])'"
                    }
                    outs[line].append(contentsOf: tokens[0])
                    cursors[line] = time.addingReportingOverflow(frameNanos).overflow ? .max : time + frameNanos
                } else {
                    let (width, o1) = Int64(tokens.count + 2).multipliedReportingOverflow(by: frameNanos)
                    let next = j < events.count ? VirtualTimeScheduler.nanos(events[j].time) : Int64.max
                    let (end, o2) = time.addingReportingOverflow(width)
                    let fits = !o1 && !o2 && end <= next
                    outs[line].append(fits ? "(" : "[")
                    for t in tokens { outs[line].append(contentsOf: t) }
                    outs[line].append(fits ? ")" : "]")
                    cursors[line] = fits ? end : (time.addingReportingOverflow(frameNanos).overflow ? .max : time + frameNanos)
                }
                positions[line] = j
            }
        }
        return (outs.map { String($0) }, columns)
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
