/// The comparison of subscription logs, in subscription order.
package struct SubscriptionComparison {
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

    /// One mismatch per differing subscription.
    public var mismatches: [SubscriptionMismatch] {
        (0..<max(expected.count, actual.count)).compactMap { i in
            let e = i < expected.count ? expected[i] : nil
            let a = i < actual.count ? actual[i] : nil
            if e == a { return nil }
            return SubscriptionMismatch(
                index: i + 1, expected: e, actual: a,
                description: "subscription \(i + 1): expected \(e.map(words) ?? "none"), got \(a.map(words) ?? "none")")
        }
    }

    private func words(_ log: SubscriptionLog) -> String {
        let sub = frameText(log.subscribed, frame: frame)
        let unsub = log.unsubscribed.map { "unsubscribed at \(frameText($0, frame: frame))" } ?? "never unsubscribed"
        return "subscribed at \(sub), \(unsub)"
    }

    /// Both sets of subscription diagrams, then the mismatches. One subscription on each side
    /// (the usual case) gets the value diff's frame ruler and a caret under the first difference.
    public func message() -> String {
        let printer = MarbleDiagram.Printer(frame: frame)
        let listed = mismatches
        let at = listed.compactMap(firstDifference).min().map { " at \(frameText($0, frame: frame))" } ?? ""
        var lines = ["subscriptions differ" + at]
        if expected.count <= 1, actual.count <= 1, !(expected.isEmpty && actual.isEmpty) {
            let (e, a) = (expected.first.map(printer.print) ?? "", actual.first.map(printer.print) ?? "")
            let columns = (markers(e, expected.first) + markers(a, actual.first)).sorted { $0.column < $1.column }
            lines.append(String(repeating: " ", count: 10) + MarbleComparison.ruler(columns, frame: frame))
            lines.append("expected: " + (e.isEmpty ? "(none)" : e))
            lines.append("actual:   " + (a.isEmpty ? "(none)" : a))
            // Under the first character that differs; against (none), under the other side's `^`.
            let caret = Self.caretColumn(e, a)
            lines.append(String(repeating: " ", count: 10 + caret) + "^")
        } else {
            lines.append("expected: " + (expected.isEmpty ? "(none)" : expected.map(printer.print).joined(separator: "\n          ")))
            lines.append("actual:   " + (actual.isEmpty ? "(none)" : actual.map(printer.print).joined(separator: "\n          ")))
        }
        lines.append(contentsOf: listed.prefix(MarbleComparison.listedMismatches).map { "  \($0)" })
        if listed.count > MarbleComparison.listedMismatches {
            lines.append("  … and \(listed.count - MarbleComparison.listedMismatches) more mismatches")
        }
        return lines.joined(separator: "\n")
    }

    /// The column of the first difference between two printed subscription diagrams; when one
    /// side has none, the other's `^` (or its `(^!)`).
    static func caretColumn(_ e: String, _ a: String) -> Int {
        let other = e.isEmpty ? a : a.isEmpty ? e : nil
        if let other {
            let marker = other.firstIndex { $0 == "^" || $0 == "(" } ?? other.startIndex
            return other.distance(from: other.startIndex, to: marker)
        }
        for (column, (x, y)) in zip(e, a).enumerated() where x != y { return column }
        return min(e.count, a.count)
    }

    /// The earliest time at which a mismatch's two sides differ.
    private func firstDifference(_ mismatch: SubscriptionMismatch) -> Duration? {
        switch (mismatch.expected, mismatch.actual) {
        case (let e?, let a?):
            if e.subscribed != a.subscribed { return min(e.subscribed, a.subscribed) }
            return [e.unsubscribed, a.unsubscribed].compactMap { $0 }.min()
        case (let e?, nil): return e.subscribed
        case (nil, let a?): return a.subscribed
        case (nil, nil): return nil
        }
    }

    /// Where a printed subscription diagram draws its `^` and `!`, with their times.
    private func markers(_ printed: String, _ log: SubscriptionLog?) -> [(time: Duration, column: Int)] {
        guard let log else { return [] }
        var columns: [(time: Duration, column: Int)] = []
        for (column, character) in printed.enumerated() {
            if character == "^" || character == "(" { columns.append((log.subscribed, column)) }
            if character == "!", let end = log.unsubscribed { columns.append((end, column)) }
            if character == "(" { break }
        }
        return columns
    }
}
