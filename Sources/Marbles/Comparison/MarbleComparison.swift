/// One difference between an expected and an actual timeline.
public struct MarbleMismatch: Sendable, Equatable, CustomStringConvertible {
    /// When it happened.
    public var time: Duration
    /// The time as the reader finds it on the diagram ("frame 12").
    public var frame: String
    /// The expected event in words, `nil` for nothing.
    public var expected: String?
    /// The actual event in words, `nil` for nothing.
    public var actual: String?

    public var description: String {
        "\(frame): expected \(expected ?? "nothing"), got \(actual ?? "nothing")"
    }
}

/// The comparison of an expected with an actual timeline: the mismatches as values, and the
/// failure message with both diagrams aligned on one frame ruler.
public struct MarbleComparison {
    /// Expected events.
    public let expected: [Recorded<Event<RecordedValue>>]
    /// Actual events.
    public let actual: [Recorded<Event<RecordedValue>>]
    /// The differences, in time order.
    public let mismatches: [MarbleMismatch]
    private let frame: Duration
    private let keyFor: (RecordedValue) -> String?

    /// Compares two timelines; `keys` names values for printing (the expected diagram's
    /// `values:` dictionary).
    public init(
        expected: [Recorded<Event<RecordedValue>>], actual: [Recorded<Event<RecordedValue>>],
        frame: Duration = .milliseconds(1), keys: [(key: String, value: RecordedValue)] = []
    ) {
        self.expected = expected
        self.actual = actual
        self.frame = frame
        self.keyFor = { value in keys.first { $0.value.matches(value) }?.key }
        let label = Self.labeler(keyFor)
        var mismatches: [MarbleMismatch] = []
        let e = Self.groupedByTime(expected)
        let a = Self.groupedByTime(actual)
        var i = 0
        var j = 0
        // One merge walk over both timelines, same-time events compared in order.
        while i < e.count || j < a.count {
            let time: Duration
            if i < e.count, j < a.count { time = min(e[i].time, a[j].time) } else { time = i < e.count ? e[i].time : a[j].time }
            let x = i < e.count && e[i].time == time ? e[i].events : []
            let y = j < a.count && a[j].time == time ? a[j].events : []
            if !x.isEmpty { i += 1 }
            if !y.isEmpty { j += 1 }
            for k in 0..<max(x.count, y.count) {
                let ex = k < x.count ? x[k] : nil
                let ac = k < y.count ? y[k] : nil
                if let ex, let ac, eventsMatch(ex, ac) { continue }
                mismatches.append(
                    MarbleMismatch(
                        time: time, frame: Self.frameText(time, frame: frame),
                        expected: ex.map { Self.words($0, label: label) }, actual: ac.map { Self.words($0, label: label) }))
            }
        }
        self.mismatches = mismatches
    }

    /// Whether the timelines are equal.
    public var matches: Bool { mismatches.isEmpty }

    /// Events grouped by time, in time order; same-time events keep their recorded order.
    static func groupedByTime(_ events: [Recorded<Event<RecordedValue>>]) -> [(time: Duration, events: [Event<RecordedValue>])] {
        let sorted = zip(events.indices, events).sorted { ($0.1.time, $0.0) < ($1.1.time, $1.0) }
        var groups: [(time: Duration, events: [Event<RecordedValue>])] = []
        for (_, recorded) in sorted {
            if let last = groups.last, last.time == recorded.time {
                groups[groups.count - 1].events.append(recorded.value)
            } else {
                groups.append((recorded.time, [recorded.value]))
            }
        }
        return groups
    }

    /// The failure message: a headline, the frame ruler, both diagrams, a caret under the first
    /// difference, then one line per mismatch.
    public func message(headline: String = "marble diagrams differ") -> String {
        let printer = MarblePrinter(frame: frame)
        let label = Self.labeler(keyFor)
        let printed = printer.printAligned([expected, actual], label: { label($0) })
        let indent = "expected: ".count
        var lines: [String] = []
        let first = mismatches.first
        lines.append(first.map { "\(headline) at \($0.frame)" } ?? headline)
        lines.append(String(repeating: " ", count: indent) + Self.ruler(printed.columns, frame: frame))
        lines.append("expected: " + printed.texts[0])
        lines.append("actual:   " + printed.texts[1])
        if let first, let column = printed.columns.first(where: { $0.time == first.time })?.column {
            lines.append(String(repeating: " ", count: indent + column) + "^")
        }
        for mismatch in mismatches { lines.append("  \(mismatch)") }
        return lines.joined(separator: "\n")
    }

    static func labeler(_ keyFor: @escaping (RecordedValue) -> String?) -> (RecordedValue) -> String {
        { value in keyFor(value) ?? value.description }
    }

    /// `next(b)`, `next(b = 20)` when the key's text is not the value's, `error(…)`, `completed`.
    static func words(_ event: Event<RecordedValue>, label: (RecordedValue) -> String) -> String {
        switch event {
        case .next(let value):
            let key = label(value)
            let text = value.description
            return key == text ? "next(\(text))" : "next(\(key) = \(text))"
        case .error(let error): return "error(\(type(of: error)): \(error))"
        case .completed: return "completed"
        }
    }

    /// "frame 12", or "frame 12.5" between frames: how a reader finds the time on a diagram.
    public static func frameText(_ time: Duration, frame: Duration) -> String {
        let ratio = time / frame
        if ratio == ratio.rounded() { return "frame \(Int(ratio))" }
        return "frame \(ratio)"
    }

    /// Frame numbers placed at the columns where events happen, skipping labels that would
    /// collide with the previous one.
    static func ruler(_ columns: [(time: Duration, column: Int)], frame: Duration) -> String {
        var line: [Character] = []
        for (time, column) in columns {
            let ratio = time / frame
            let label = ratio == ratio.rounded() ? String(Int(ratio)) : String(ratio)
            if column < line.count + (line.isEmpty ? 0 : 1) { continue }
            line.append(contentsOf: repeatElement(" ", count: column - line.count))
            line.append(contentsOf: label)
        }
        return String(line)
    }
}

/// The comparison of subscription logs.
public struct SubscriptionComparison {
    /// Expected logs.
    public let expected: [SubscriptionLog]
    /// Actual logs.
    public let actual: [SubscriptionLog]
    private let frame: Duration

    /// Compares in order.
    public init(expected: [SubscriptionLog], actual: [SubscriptionLog], frame: Duration = .milliseconds(1)) {
        self.expected = expected
        self.actual = actual
        self.frame = frame
    }

    /// Whether the logs are equal.
    public var matches: Bool { expected == actual }

    /// One line per differing subscription.
    public var mismatches: [String] {
        (0..<max(expected.count, actual.count)).compactMap { i in
            let e = i < expected.count ? expected[i] : nil
            let a = i < actual.count ? actual[i] : nil
            if e == a { return nil }
            return "subscription \(i + 1): expected \(e.map(words) ?? "none"), got \(a.map(words) ?? "none")"
        }
    }

    private func words(_ log: SubscriptionLog) -> String {
        let sub = MarbleComparison.frameText(log.subscribed, frame: frame)
        let unsub = log.unsubscribed.map { "unsubscribed at \(MarbleComparison.frameText($0, frame: frame))" } ?? "never unsubscribed"
        return "subscribed at \(sub), \(unsub)"
    }

    /// Both sets of subscription diagrams, then the mismatches.
    public func message() -> String {
        let printer = MarblePrinter(frame: frame)
        var lines = ["subscriptions differ"]
        lines.append("expected: " + (expected.isEmpty ? "(none)" : expected.map(printer.print).joined(separator: "\n          ")))
        lines.append("actual:   " + (actual.isEmpty ? "(none)" : actual.map(printer.print).joined(separator: "\n          ")))
        lines.append(contentsOf: mismatches.map { "  " + $0 })
        return lines.joined(separator: "\n")
    }
}
