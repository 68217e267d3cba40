/// One event on a drawn timeline, in frames.
public struct TimelineEvent: Equatable, Sendable {
    /// What the event is.
    public enum Kind: Equatable, Sendable {
        /// A value, with its label.
        case value(String)
        /// Completion (`|`).
        case complete
        /// An error (`#`), with the error's description.
        case error(String)
    }
    /// When it happens, in frames from the timeline's start (fractions for sub-frame times).
    public var frame: Double
    /// What happens.
    public var kind: Kind

    /// Creates an event.
    public init(frame: Double, kind: Kind) {
        self.frame = frame
        self.kind = kind
    }
}

/// An inner observable of a higher-order timeline, drawn from its subscription point.
public struct InnerTimelineModel: Equatable, Sendable {
    /// The frame on the parent timeline where the inner starts.
    public var start: Double
    /// Events relative to `start`.
    public var events: [TimelineEvent]
    /// Relative frame after which the inner was unsubscribed (its line drawn dashed), if it was
    /// cut short.
    public var fadedAfter: Double?
    /// How many of `events`, from the first, reached the operator in the run (the rest are drawn
    /// faded, even at the frame it left: the run decided which came first); `nil`: every one
    /// up to `fadedAfter`, as frames tell.
    public var delivered: Int?

    /// Creates an inner timeline.
    public init(start: Double, events: [TimelineEvent], fadedAfter: Double? = nil, delivered: Int? = nil) {
        self.start = start
        self.events = events
        self.fadedAfter = fadedAfter
        self.delivered = delivered
    }

    /// Whether the event at `index` of `events` reached the operator.
    public func isDelivered(_ index: Int) -> Bool {
        if let delivered { return index < delivered }
        guard let cut = fadedAfter else { return true }
        let frame = events[index].frame
        return frame <= cut && !(cut == 0 && frame == 0)
    }
}

/// One timeline to draw: an input, the output, or the expected output.
public struct TimelineModel: Equatable, Sendable {
    /// The name shown beside it (`e1`, `output`, `expected`).
    public var name: String
    /// Its events, in time order.
    public var events: [TimelineEvent]
    /// Inner observables emitted on it (higher-order timelines only).
    public var inners: [InnerTimelineModel] = []
    /// Frames at which this timeline differs from the one it is compared with.
    public var highlights: [Double] = []
    /// An input's subscriptions, in frames (`end` nil while still subscribed at the end), when
    /// they tell something: more than one (a resubscription) or one that ends before the input
    /// does. Empty otherwise.
    public var subscriptions: [SubscriptionWindow] = []
    /// A subscriber's own subscription (a spec's `subscriber` line): its line is drawn from
    /// `start` to `end` only; `nil` for timelines that span the whole diagram.
    public var lifetime: SubscriptionWindow?

    /// Creates a timeline.
    public init(name: String, events: [TimelineEvent], inners: [InnerTimelineModel] = [], highlights: [Double] = []) {
        self.name = name
        self.events = events
        self.inners = inners
        self.highlights = highlights
    }
}

/// Everything a diagram shows, computed from a spec by ``DiagramRunner``; layout turns it into
/// geometry.
public struct DiagramModel: Equatable, Sendable {
    /// The diagram's title (the spec's `title:`, else the operator call).
    public var title: String
    /// The input timelines, top to bottom.
    public var inputs: [TimelineModel]
    /// The operator box text (`nil`: no box, the spec gave the output itself).
    public var operatorLabel: String?
    /// The computed (or, for test-written specs, recorded) output.
    public var output: TimelineModel
    /// The expected output, drawn when it differs from the computed one.
    public var expected: TimelineModel?
    /// Timelines drawn below the output, in order: further subscribers' outputs (each followed
    /// by its expected timeline when they differ) and side effects an operator performed
    /// (`finalize`'s action).
    public var moreOutputs: [TimelineModel] = []
    /// Mismatches between expected and actual (empty when they agree or there is no expectation).
    package var mismatches: [MarbleMismatch] = []
    /// The failure message with both diagrams aligned, when they differ.
    public var mismatchMessage: String?
    /// Whether a test reported this diagram as failing.
    public var failed: Bool
    /// Every timeline below the operator box, top to bottom.
    public var outputs: [TimelineModel] { [output] + [expected].compactMap { $0 } + moreOutputs }
    /// The last frame any timeline reaches.
    public var frames: Double

    /// Creates a model.
    public init(
        title: String, inputs: [TimelineModel], operatorLabel: String?, output: TimelineModel, expected: TimelineModel? = nil,
        mismatchMessage: String? = nil, failed: Bool = false, frames: Double
    ) {
        self.title = title
        self.inputs = inputs
        self.operatorLabel = operatorLabel
        self.output = output
        self.expected = expected
        self.mismatchMessage = mismatchMessage
        self.failed = failed
        self.frames = frames
    }
}

/// When an input was subscribed, in frames.
public struct SubscriptionWindow: Equatable, Sendable {
    /// The subscription's frame.
    public var start: Double
    /// The unsubscription's frame; `nil` while still subscribed at the end.
    public var end: Double?

    /// A window from `start` to `end`.
    public init(start: Double, end: Double?) {
        self.start = start
        self.end = end
    }
}
