extension MarbleDiagram {
    /// Writes timed events as the canonical diagram, the inverse of ``MarbleDiagram/Parser``.
    ///
    /// Gaps of up to ``maxDashes`` whole frames print as `-`, longer or fractional ones as a time
    /// progression (` 250ms `). Same-time events print as a `(…)` group when it fits before the
    /// next event, else as a compact `[…]` group. Values that are one plain character print bare;
    /// others are quoted. Times must not be negative.
    public struct Printer: Sendable {
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
            var columns: [(time: Duration, column: Int)]? = []
            columns?.reserveCapacity(events.count)
            let text = printLine(Self.labelled(events, label), columns: &columns)
            return Printed(text: text, columns: columns ?? [])
        }

        /// Prints events whose values are strings.
        public func print(_ events: [Recorded<Event<String>>]) -> String {
            var noColumns: [(time: Duration, column: Int)]?
            return printLine(Self.labelled(events, { $0 }), columns: &noColumns)
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
}

extension MarbleDiagram.Printer {
    /// Prints several timelines so that events at the same time start in the same column:
    /// each line is padded with spaces, which the language ignores, so every printed line
    /// still parses to its events.
    public func printAligned<Value>(_ lines: [[Recorded<Event<Value>>]], label: (Value) -> String) -> (
        texts: [String], columns: [(time: Duration, column: Int)]
    ) {
        // Values become their labels first: the rest is not generic, so it runs specialized
        // whatever module calls it.
        printAligned(lines.map { PrintedLine(Self.labelled($0, label)) })
    }

    static func labelled<Value>(_ events: [Recorded<Event<Value>>], _ label: (Value) -> String) -> [TimedEvent] {
        events.map { recorded in
            let event: PrintedEvent
            switch recorded.value {
            case .next(let value): event = .next(label(value))
            case .completed: event = .completed
            case .error: event = .error
            }
            return TimedEvent(time: VirtualTimeScheduler.nanos(recorded.time), event: event)
        }
    }

    /// One line: nothing to align it with, so each gap is written as it is.
    func printLine(_ events: [TimedEvent], columns: inout [(time: Duration, column: Int)]?) -> String {
        var line = PrintedLine(events)
        while let time = line.nextTime {
            let gap = line.gap(to: time, printer: self)
            line.append(gap, paddedTo: line.width + gap.width)
            columns?.append((.nanoseconds(time), line.width))
            line.appendEvents(at: time, printer: self)
        }
        return line.text
    }

    private func printAligned(_ lines: [PrintedLine]) -> (texts: [String], columns: [(time: Duration, column: Int)]) {
        var lines = lines
        var gaps = [Gap](repeating: .none, count: lines.count)
        // Labelled as returned: an unlabelled array would be converted by a dynamic cast of
        // each element.
        var columns: [(time: Duration, column: Int)] = []
        columns.reserveCapacity(lines.first?.events.count ?? 0)
        while let time = lines.lazy.compactMap(\.nextTime).min() {
            var column = 0
            for index in lines.indices {
                gaps[index] = lines[index].gap(to: time, printer: self)
                column = Swift.max(column, lines[index].width + gaps[index].width)
            }
            // A line with nothing left stops where its diagram stops: dashes after its last event
            // would draw frames its diagram never wrote (`e---x` printed as `e---x-`).
            for index in lines.indices where lines[index].nextTime != nil { lines[index].append(gaps[index], paddedTo: column) }
            columns.append((.nanoseconds(time), column))
            for index in lines.indices { lines[index].appendEvents(at: time, printer: self) }
        }
        return (lines.map(\.text), columns)
    }
}

/// An event as printed: a value is its label.
enum PrintedEvent {
    case next(String)
    case completed
    case error
}

/// An event with its time in nanoseconds (a struct, not a tuple: an array of tuples is
/// destroyed through the runtime's generic tuple witness, element by element).
struct TimedEvent {
    let time: Int64
    let event: PrintedEvent
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

/// One line being printed, as UTF-8 bytes, with where it is in time and in its events.
private struct PrintedLine {
    /// The events with their times in nanoseconds, in time order (same-time events in
    /// recorded order).
    let events: [TimedEvent]
    var out: [UInt8] = []
    /// Characters written (columns count characters, not bytes).
    var width = 0
    /// The time the end of the line stands for.
    var cursor: Int64 = 0
    var position = 0
    /// After its `|` or `#` a line is padded with spaces: dashes would read as time going on.
    var ended = false

    init(_ events: [TimedEvent]) {
        var sorted = true
        for i in events.indices.dropFirst() where events[i].time < events[i - 1].time {
            sorted = false
            break
        }
        self.events =
            sorted ? events : events.enumerated().sorted { ($0.element.time, $0.offset) < ($1.element.time, $1.offset) }.map(\.element)
        out.reserveCapacity(events.count * 2 + 8)
    }

    var text: String { String(decoding: out, as: UTF8.self) }

    /// The time of the next event not yet printed.
    var nextTime: Int64? { position < events.count ? events[position].time : nil }

    /// What brings the line from its cursor to `time`: dashes, or a time progression.
    mutating func gap(to time: Int64, printer: MarbleDiagram.Printer) -> Gap {
        if ended { return .none }
        let gap = time &- cursor
        guard gap > 0 else { return .none }
        cursor = time
        if gap % printer.frameNanos == 0 && gap / printer.frameNanos <= printer.maxDashes {
            return .dashes(Int(gap / printer.frameNanos))
        }
        return .progression(MarbleDiagram.Printer.formatDuration(gap), leadingSpace: out.last.map { $0 != 0x20 } ?? false)
    }

    /// Appends a gap, padded with spaces so the next event starts at `column`: before a dash
    /// run, after a time progression (whose leading space must stay next to it).
    mutating func append(_ gap: Gap, paddedTo column: Int) {
        let padding = column - width - gap.width
        switch gap {
        case .progression(let text, let leadingSpace):
            if leadingSpace { pad(1, with: 0x20) }
            write(text)
            pad(1 + padding, with: 0x20)
        case .dashes(let count):
            pad(padding, with: 0x20)
            pad(count, with: 0x2D)
        case .none:
            pad(padding, with: 0x20)
        }
    }

    /// The events at `time`: one token, or a group (`(ab)` when the frames it takes are free,
    /// else the compact `[ab]`).
    mutating func appendEvents(at time: Int64, printer: MarbleDiagram.Printer) {
        let start = position
        var end = start
        while end < events.count, events[end].time == time { end += 1 }
        guard end > start else { return }
        position = end
        let oneFrameLater = time.addingReportingOverflow(printer.frameNanos).overflow ? Int64.max : time + printer.frameNanos
        if end == start + 1 {
            let event = events[start].event
            let next = end < events.count ? events[end] : nil
            if case .next(let text) = event, let byte = Self.plainByte(text), byte >= 0x30 && byte <= 0x39,
                readsAsTimeProgression(next: next, at: time, printer: printer)
            {
                write(byte: 0x27)
                write(byte: byte)
                write(byte: 0x27)
            } else {
                write(event)
            }
            cursor = oneFrameLater
            return
        }
        let (width, o1) = Int64(end - start + 2).multipliedReportingOverflow(by: printer.frameNanos)
        let next = end < events.count ? events[end].time : Int64.max
        let (groupEnd, o2) = time.addingReportingOverflow(width)
        let fits = !o1 && !o2 && groupEnd <= next
        write(byte: fits ? 0x28 : 0x5B)
        for k in start..<end { write(events[k].event) }
        write(byte: fits ? 0x29 : 0x5D)
        cursor = fits ? groupEnd : oneFrameLater
    }

    /// Whether a one-digit value at the start of a token, followed at once by a value that
    /// starts with a letter, digit or `.`, would be read back as a time progression (`1s`) or
    /// a mistyped one (`7b`).
    private func readsAsTimeProgression(next: TimedEvent?, at time: Int64, printer: MarbleDiagram.Printer) -> Bool {
        guard out.last == nil || out.last == 0x20, let next, next.time == time &+ printer.frameNanos else { return false }
        // A value that needs quotes starts with `'`.
        guard case .next(let text) = next.event, let first = text.utf8.first, !MarbleDiagram.Symbol.needsQuotes(text) else { return false }
        return (first >= 0x30 && first <= 0x39) || ((first | 0x20) >= 0x61 && (first | 0x20) <= 0x7A) || first == 0x2E
    }

    /// The byte of a value that is one printable ASCII character other than a symbol: most
    /// values, printed bare.
    private static func plainByte(_ text: String) -> UInt8? {
        let utf8 = text.utf8
        guard utf8.count == 1 else { return nil }
        let byte = utf8[utf8.startIndex]
        return byte >= 0x20 && byte < 0x7F && !MarbleDiagram.Symbol.isSymbol(byte) ? byte : nil
    }

    /// Writes an event's token: `|` or `#` (which end the line), or its value.
    mutating func write(_ event: PrintedEvent) {
        switch event {
        case .next(let text): write(value: text)
        case .completed:
            write(byte: 0x7C)
            ended = true
        case .error:
            write(byte: 0x23)
            ended = true
        }
    }

    /// Writes a value, quoted when it must be.
    mutating func write(value text: String) {
        if let byte = Self.plainByte(text) { return write(byte: byte) }
        guard MarbleDiagram.Symbol.needsQuotes(text) else { return write(text) }
        var quoted = "'"
        for c in text {
            if c == "'" || c == "\\" { quoted.append("\\") }
            quoted.append(c)
        }
        quoted.append("'")
        write(quoted)
    }

    mutating func write(byte: UInt8) {
        out.append(byte)
        width += 1
    }

    mutating func write(_ text: String) {
        out.append(contentsOf: text.utf8)
        // One byte per character is the common case; count characters only when it is not.
        width += text.utf8.allSatisfy { $0 < 0x80 } ? text.utf8.count : text.count
    }

    mutating func pad(_ count: Int, with byte: UInt8) {
        guard count > 0 else { return }
        // Most pads are a dash or two: appending a repeated collection costs more than that.
        for _ in 0..<count { out.append(byte) }
        width += count
    }
}
