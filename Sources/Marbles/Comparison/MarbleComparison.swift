/// The comparison of an expected with an actual timeline: the mismatches as values, and the
/// failure message with both diagrams aligned on one frame ruler.
package struct MarbleComparison {
    /// Expected events.
    public let expected: [Recorded<Event<RecordedValue>>]
    /// Actual events.
    public let actual: [Recorded<Event<RecordedValue>>]
    /// The differences, in time order.
    public let mismatches: [MarbleMismatch]
    /// How many mismatches a message lists before it says "and N more".
    public static let listedMismatches = 20
    /// The widest stretch of each diagram a message shows, in columns.
    public static let shownColumns = 160
    private let frame: Duration
    private let label: (RecordedValue) -> String

    /// Compares two timelines; `keys` names values for printing (the expected diagram's
    /// `values:` dictionary); `areEqual` compares plain values (default: `==` for `Equatable`
    /// values, else same type and description; a ``ValueMatcher`` in the expected values
    /// decides for itself).
    public init(
        expected: [Recorded<Event<RecordedValue>>], actual: [Recorded<Event<RecordedValue>>],
        frame: Duration = .milliseconds(1), keys: [(key: String, value: RecordedValue)] = [],
        areEqual: ((Any, Any) -> Bool)? = nil
    ) {
        self.expected = expected
        self.actual = actual
        self.frame = frame
        let label = Self.labeler { Self.key(for: $0, in: keys) }
        self.label = label
        self.mismatches = Self.mismatches(
            Self.timeOrdered(expected), Self.timeOrdered(actual), frame: frame, label: label, areEqual: areEqual)
    }

    /// One merge walk over both timelines (in time order), same-time events compared in order.
    private static func mismatches(
        _ e: [Recorded<Event<RecordedValue>>], _ a: [Recorded<Event<RecordedValue>>], frame: Duration,
        label: (RecordedValue) -> String, areEqual: ((Any, Any) -> Bool)?
    ) -> [MarbleMismatch] {
        var mismatches: [MarbleMismatch] = []
        var comparer = EventComparer(areEqual: areEqual)
        var i = 0
        var j = 0
        while i < e.count || j < a.count {
            let time = i < e.count && j < a.count ? min(e[i].time, a[j].time) : (i < e.count ? e[i].time : a[j].time)
            var iEnd = i
            while iEnd < e.count && e[iEnd].time == time { iEnd += 1 }
            var jEnd = j
            while jEnd < a.count && a[jEnd].time == time { jEnd += 1 }
            for k in 0..<max(iEnd - i, jEnd - j) {
                let ex = i + k < iEnd ? e[i + k].value : nil
                let ac = j + k < jEnd ? a[j + k].value : nil
                if let ex, let ac, comparer.matches(ex, ac) { continue }
                mismatches.append(Self.mismatch(at: time, frame: frame, ex, ac, label: label))
            }
            i = iEnd
            j = jEnd
        }
        return mismatches
    }

    /// Whether the timelines are equal.
    public var matches: Bool { mismatches.isEmpty }

    /// A mismatch whose two events are described so that they never read alike: when the
    /// plain descriptions collide (`1` the Int and `"1"` the String), the types are shown.
    static func mismatch(
        at time: Duration, frame: Duration, _ ex: Event<RecordedValue>?, _ ac: Event<RecordedValue>?,
        label: (RecordedValue) -> String
    ) -> MarbleMismatch {
        var expectedEvent = ex.map { describe($0, label: label, typed: false) }
        var actualEvent = ac.map { describe($0, label: label, typed: false) }
        if let ex, let ac, expectedEvent == actualEvent {
            expectedEvent = describe(ex, label: label, typed: true)
            actualEvent = describe(ac, label: label, typed: true)
        }
        return MarbleMismatch(time: time, frame: frameText(time, frame: frame), expected: expectedEvent, actual: actualEvent)
    }

    /// The events in time order; same-time events keep their recorded order. Recordings arrive
    /// in time order: they are sorted (stably) only when they do not.
    static func timeOrdered(_ events: [Recorded<Event<RecordedValue>>]) -> [Recorded<Event<RecordedValue>>] {
        if areInTimeOrder(events) { return events }
        return zip(events.indices, events).sorted { ($0.1.time, $0.0) < ($1.1.time, $1.0) }.map(\.1)
    }

    /// The failure message: a headline, the frame ruler, both diagrams, a caret under the first
    /// difference, then one line per mismatch (at most ``listedMismatches``).
    public func message(headline: String = "marble diagrams differ") -> String {
        let printer = MarbleDiagram.Printer(frame: frame)
        let printed = printer.printAligned([expected, actual], label: label)
        let indent = "expected: ".count
        let first = mismatches.first
        let caret = first.flatMap { m in printed.columns.first(where: { $0.time == m.time })?.column }
        let window = Self.window(around: caret ?? 0, width: max(printed.texts.map(\.count).max() ?? 0, 1))
        var lines = [first.map { "\(headline) at \($0.frame)" } ?? headline]
        lines.append(String(repeating: " ", count: indent) + Self.cropRuler(Self.ruler(printed.columns, frame: frame), window))
        lines.append("expected: " + Self.crop(printed.texts[0], window))
        lines.append("actual:   " + Self.crop(printed.texts[1], window))
        if let caret {
            lines.append(String(repeating: " ", count: indent + caret - window.lowerBound + (window.lowerBound > 0 ? 1 : 0)) + "^")
        }
        for mismatch in mismatches.prefix(Self.listedMismatches) { lines.append("  \(mismatch)") }
        if mismatches.count > Self.listedMismatches {
            lines.append("  … and \(mismatches.count - Self.listedMismatches) more mismatches")
        }
        return lines.joined(separator: "\n")
    }

    /// The actual timeline as one diagram, values named by the expected diagram's keys (what
    /// record mode writes).
    public func actualDiagram() -> String {
        MarbleDiagram.Printer(frame: frame).print(actual, label: label).text
    }

    /// The columns shown: everything when it fits, else ``shownColumns`` starting a little
    /// before the caret.
    static func window(around caret: Int, width: Int) -> Range<Int> {
        guard width > shownColumns else { return 0..<width }
        let start = max(0, min(caret - 20, width - shownColumns))
        return start..<(start + shownColumns)
    }

    /// `text` cut to `window`, with `…` where something was left out.
    static func crop(_ text: String, _ window: Range<Int>) -> String {
        let characters = Array(text)
        guard window.lowerBound > 0 || characters.count > window.upperBound else { return text }
        let upper = min(window.upperBound, characters.count)
        let lower = min(window.lowerBound, upper)
        return (lower > 0 ? "…" : "") + String(characters[lower..<upper]) + (characters.count > upper ? "…" : "")
    }

    /// The ruler cut to `window` without cutting a label: one that starts inside the window is
    /// shown whole (it may stand past the diagrams' last column), one that starts before it is
    /// left out.
    static func cropRuler(_ ruler: String, _ window: Range<Int>) -> String {
        let characters = Array(ruler)
        var lower = min(window.lowerBound, characters.count)
        while lower > 0, lower < characters.count, characters[lower] != " ", characters[lower - 1] != " " { lower += 1 }
        var upper = max(min(window.upperBound, characters.count), lower)
        while upper > lower, upper < characters.count, characters[upper] != " ", characters[upper - 1] != " " { upper += 1 }
        // Shown from `lower`: keep the columns aligned with the cropped diagrams (which start
        // with `…` when cut on the left).
        let shift = lower - window.lowerBound
        let prefix = window.lowerBound > 0 ? " " + String(repeating: " ", count: shift) : ""
        var shown = prefix + String(characters[lower..<upper])
        while shown.last == " " { shown.removeLast() }
        return shown
    }

    /// The key `values:` gives `value`, if any. A matcher is named by its own key; actual values
    /// are never named after a matcher.
    package static func key(for value: RecordedValue, in keys: [(key: String, value: RecordedValue)]) -> String? {
        if case .plain(let matcher as ValueMatcher) = value {
            return keys.first {
                if case .plain(let m as ValueMatcher) = $0.value { m.description == matcher.description } else { false }
            }?.key
        }
        return keys.first { key in
            if case .plain(is ValueMatcher) = key.value { return false }
            return key.value.matches(value)
        }?.key
    }

    static func labeler(_ keyFor: @escaping (RecordedValue) -> String?) -> (RecordedValue) -> String {
        { value in keyFor(value) ?? value.description }
    }

    /// `next(b)`, `next(b = 20)` when the key's text is not the value's, `error(…)`, `completed`;
    /// `typed` adds the value's type (`next(1: Int)`).
    static func describe(_ event: Event<RecordedValue>, label: (RecordedValue) -> String, typed: Bool) -> MismatchedEvent {
        switch event {
        case .next(let value):
            let key = label(value)
            var text = typed ? value.typedDescription : value.description
            if key != value.description { text = "\(key) = \(text)" }
            return MismatchedEvent(kind: .next, text: text)
        case .error(let error): return MismatchedEvent(kind: .error, text: "\(type(of: error)): \(error)")
        case .completed: return MismatchedEvent(kind: .completed)
        }
    }

    /// "frame 12", or "frame 12.5" between frames: how a reader finds the time on a diagram.
    public static func frameText(_ time: Duration, frame: Duration) -> String {
        Marbles.frameText(time, frame: frame)
    }

    /// Frame numbers placed at the columns where events happen, skipping labels that would
    /// collide with the previous one.
    static func ruler(_ columns: [(time: Duration, column: Int)], frame: Duration) -> String {
        var line = ""
        var count = 0
        for (time, column) in columns {
            let label = frameNumber(time, frame: frame)
            if column < count + (count == 0 ? 0 : 1) { continue }
            line += String(repeating: " ", count: column - count) + label
            count = column + label.count
        }
        return line
    }
}
