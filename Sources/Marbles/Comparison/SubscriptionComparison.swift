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

    /// Both sets of subscription diagrams, then the mismatches.
    public func message() -> String {
        let printer = MarbleDiagram.Printer(frame: frame)
        var lines = ["subscriptions differ"]
        lines.append("expected: " + (expected.isEmpty ? "(none)" : expected.map(printer.print).joined(separator: "\n          ")))
        lines.append("actual:   " + (actual.isEmpty ? "(none)" : actual.map(printer.print).joined(separator: "\n          ")))
        let listed = mismatches
        lines.append(contentsOf: listed.prefix(MarbleComparison.listedMismatches).map { "  \($0)" })
        if listed.count > MarbleComparison.listedMismatches {
            lines.append("  … and \(listed.count - MarbleComparison.listedMismatches) more mismatches")
        }
        return lines.joined(separator: "\n")
    }
}
