/// An event named in a mismatch, in a form tools can inspect without the value's type.
package struct MismatchedEvent: Sendable, Equatable, CustomStringConvertible {
    /// Which kind of event it is.
    public enum Kind: Sendable, Equatable {
        /// A value.
        case next
        /// An error.
        case error
        /// Completion.
        case completed
    }
    /// Which kind of event it is.
    public var kind: Kind
    /// The value's text (`b = 20` when a key names it), the error's type and text, or empty.
    public var text: String

    /// Creates an event description.
    public init(kind: Kind, text: String = "") {
        self.kind = kind
        self.text = text
    }

    /// `next(b = 20)`, `error(MarbleError: error)`, `completed`.
    public var description: String {
        switch kind {
        case .next: return "next(\(text))"
        case .error: return "error(\(text))"
        case .completed: return "completed"
        }
    }
}

/// One difference between an expected and an actual timeline.
package struct MarbleMismatch: Sendable, Equatable, CustomStringConvertible {
    /// How the timelines differ at this time.
    public enum Kind: Sendable, Equatable {
        /// An event was expected and nothing happened.
        case missing
        /// Something happened that was not expected.
        case unexpected
        /// Both have an event here, and they differ.
        case different
    }
    /// How the timelines differ, from which events are present.
    public var kind: Kind {
        switch (expected, actual) {
        case (.some, nil): return .missing
        case (nil, .some): return .unexpected
        default: return .different
        }
    }
    /// When it happened.
    public var time: Duration
    /// The time as the reader finds it on the diagram ("frame 12").
    public var frame: String
    /// The expected event, `nil` for nothing.
    public var expected: MismatchedEvent?
    /// The actual event, `nil` for nothing.
    public var actual: MismatchedEvent?

    /// Creates a mismatch.
    public init(time: Duration, frame: String, expected: MismatchedEvent?, actual: MismatchedEvent?) {
        self.time = time
        self.frame = frame
        self.expected = expected
        self.actual = actual
    }

    /// `frame 5: expected next(21), got next(20)`.
    public var description: String {
        "\(frame): expected \(expected?.description ?? "nothing"), got \(actual?.description ?? "nothing")"
    }
}

/// One difference between expected and actual subscription logs.
package struct SubscriptionMismatch: Sendable, Equatable, CustomStringConvertible {
    /// Which subscription (1-based, in subscription order).
    public var index: Int
    /// The expected subscription, `nil` for none.
    public var expected: SubscriptionLog?
    /// The actual subscription, `nil` for none.
    public var actual: SubscriptionLog?
    /// `subscription 1: expected subscribed at frame 0, …, got …`.
    public var description: String
}

/// How a reader finds a time on a diagram: "frame 12", or "frame 12.5" between frames.
/// Integer arithmetic on nanoseconds, so frame 295149 never prints as 295148.99999999994.
package func frameText(_ time: Duration, frame: Duration) -> String {
    "frame " + frameNumber(time, frame: frame)
}

/// The frame number of `time` ("12", "12.5", "-3"), exact to six decimals.
func frameNumber(_ time: Duration, frame: Duration) -> String {
    let t = time.clampedNanoseconds
    let f = max(frame.clampedNanoseconds, 1)
    let negative = t < 0
    let magnitude = t.magnitude
    let whole = magnitude / UInt64(f)
    var remainder = magnitude % UInt64(f)
    var text = (negative ? "-" : "") + String(whole)
    guard remainder != 0 else { return text }
    text += "."
    var digits = ""
    for _ in 0..<6 where remainder != 0 {
        let (product, overflow) = remainder.multipliedReportingOverflow(by: 10)
        if overflow { break }
        digits.append(String(product / UInt64(f)))
        remainder = product % UInt64(f)
    }
    while digits.hasSuffix("0") { digits.removeLast() }
    return text + (digits.isEmpty ? "0" : digits)
}
