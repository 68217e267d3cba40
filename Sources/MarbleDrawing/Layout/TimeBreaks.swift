/// A long idle stretch of a diagram drawn short: a break mark on every line it crosses and its
/// real duration written above (`1s`, as the marble language writes it), so that compressed time
/// is never read as real spacing.
struct TimeBreak: Equatable {
    /// Where the break mark stands, in compressed frames.
    var at: Double
    /// The pause it stands for, in frames (milliseconds: specs run at 1 ms a frame): from one
    /// event to the next on the topmost line that is idle across the whole squeezed stretch,
    /// so that the label reads as the spec wrote the pause (`a 1s b` is `1s`, even where
    /// another line's event shortened the stretch squeezed).
    var frames: Double

    /// The idle time as the marble language writes it between two events (`a 1s b` has `b`
    /// 1,001 frames after `a`: the frame `a` takes, then `1s`): `250ms`, `1s`, `1.5s`, `2m`.
    var label: String {
        let ms = Int((frames - 1).rounded())
        if ms >= 60_000, ms % 60_000 == 0 { return "\(ms / 60_000)m" }
        if ms >= 1_000 {
            var text = String(ms / 1_000)
            let fraction = ms % 1_000
            if fraction != 0 {
                var digits = String(fraction)
                digits = String(repeating: "0", count: 3 - digits.count) + digits
                while digits.hasSuffix("0") { digits.removeLast() }
                text += "." + digits
            }
            return text + "s"
        }
        return "\(ms)ms"
    }
}

/// Squeezes a diagram's long idle stretches so that it fits a width.
struct TimeAxis {
    /// Stretches squeezed, as (start, end) in real frames, each drawn `kept` frames long.
    let gaps: [(start: Double, end: Double)]
    /// For each squeezed stretch, the pause its label states (``TimeBreak/frames``).
    let pauses: [Double]
    /// How many frames a squeezed stretch keeps: room for its break mark and its duration.
    let kept: Double

    /// The least width of a squeezed stretch, in points.
    static let keptWidth = 56.0

    /// The stretches to squeeze so that `model` spans at most `fit` frames of `frameWidth`
    /// points: idle stretches between two frames where something is drawn, longer than a
    /// squeezed one (every one at least a quarter as long as the longest, then the longest
    /// first until it fits); none when it fits already.
    init(_ model: DiagramModel, fit: Double, frameWidth: Double) {
        let kept = Swift.max(3, (Self.keptWidth / Swift.max(frameWidth, 1)).rounded(.up))
        self.kept = kept
        let busy = Self.busyFrames(model)
        var candidates = zip(busy, busy.dropFirst()).map { (start: $0, end: $1) }.filter { $0.end - $0.start > kept + 1 }
        candidates.sort { ($0.end - $0.start, $1.start) > ($1.end - $1.start, $0.start) }
        var total = model.frames + 2
        var chosen: [(start: Double, end: Double)] = []
        guard total > fit, let longest = candidates.first else {
            gaps = []
            pauses = []
            return
        }
        // Every stretch of the same order as the longest goes too, so that a squeezed stretch
        // is never drawn shorter than a shorter one left whole; then more, longest first, until
        // the diagram fits.
        let alike = (longest.end - longest.start) / 4
        for gap in candidates where total > fit || gap.end - gap.start >= alike {
            chosen.append(gap)
            total -= gap.end - gap.start - kept
        }
        gaps = chosen.sorted { $0.start < $1.start }
        pauses = gaps.map { Self.pause(around: $0, in: model) }
    }

    /// The pause a squeezed stretch stands for: the idle time between two events of the
    /// topmost line (inner lines after their parent) that has no event inside the stretch and
    /// one on either side; the stretch itself when none has.
    static func pause(around gap: (start: Double, end: Double), in model: DiagramModel) -> Double {
        var lines: [[Double]] = []
        for t in model.inputs + model.outputs {
            lines.append(t.events.map(\.frame))
            for inner in t.inners { lines.append(inner.events.map { inner.start + $0.frame }) }
        }
        for frames in lines {
            guard let before = frames.filter({ $0 <= gap.start }).max(), let after = frames.filter({ $0 >= gap.end }).min(),
                !frames.contains(where: { $0 > gap.start && $0 < gap.end })
            else { continue }
            return after - before
        }
        return gap.end - gap.start
    }

    /// Whether anything is squeezed.
    var isEmpty: Bool { gaps.isEmpty }

    /// A real frame's place on the squeezed axis.
    func frame(_ f: Double) -> Double {
        var shift = 0.0
        for gap in gaps {
            if f >= gap.end {
                shift += gap.end - gap.start - kept
            } else if f > gap.start {
                return gap.start - shift + (f - gap.start) * kept / (gap.end - gap.start)
            } else {
                break
            }
        }
        return f - shift
    }

    /// The breaks to draw, in squeezed frames.
    var breaks: [TimeBreak] {
        zip(gaps, pauses).map { TimeBreak(at: frame($0.start) + kept / 2, frames: $1) }
    }

    /// `model` on the squeezed axis.
    func apply(to model: DiagramModel) -> DiagramModel {
        var model = model
        model.inputs = model.inputs.map(apply)
        model.output = apply(to: model.output)
        model.expected = model.expected.map(apply)
        model.moreOutputs = model.moreOutputs.map(apply)
        model.frames = frame(model.frames)
        return model
    }

    private func apply(to t: TimelineModel) -> TimelineModel {
        var t = t
        t.events = t.events.map { TimelineEvent(frame: frame($0.frame), kind: $0.kind) }
        t.highlights = t.highlights.map(frame)
        t.subscriptions = t.subscriptions.map { SubscriptionWindow(start: frame($0.start), end: $0.end.map(frame)) }
        t.lifetime = t.lifetime.map { SubscriptionWindow(start: frame($0.start), end: $0.end.map(frame)) }
        t.inners = t.inners.map { inner in
            var squeezed = inner
            let start = frame(inner.start)
            squeezed.start = start
            squeezed.events = inner.events.map { TimelineEvent(frame: frame(inner.start + $0.frame) - start, kind: $0.kind) }
            squeezed.fadedAfter = inner.fadedAfter.map { frame(inner.start + $0) - start }
            return squeezed
        }
        return t
    }

    /// Frames where something is drawn (an event, an inner's start and end, a subscription's
    /// start and end, a highlight), the start and the end, in order.
    static func busyFrames(_ model: DiagramModel) -> [Double] {
        var frames: Set<Double> = [0, model.frames]
        for t in model.inputs + model.outputs {
            frames.formUnion(t.events.map(\.frame))
            frames.formUnion(t.highlights)
            for window in t.subscriptions + [t.lifetime].compactMap({ $0 }) {
                frames.insert(window.start)
                if let end = window.end { frames.insert(end) }
            }
            for inner in t.inners {
                frames.insert(inner.start)
                frames.insert(inner.start + DiagramLayout.drawnLength(inner))
                frames.formUnion(inner.events.map { inner.start + $0.frame })
                if let cut = inner.fadedAfter { frames.insert(inner.start + cut) }
            }
        }
        return frames.sorted()
    }
}
