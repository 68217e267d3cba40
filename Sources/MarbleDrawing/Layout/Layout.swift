/// Turns a `DiagramModel` into a ``DisplayList``: pure geometry, no Cairo.
///
/// Top to bottom: each input timeline (its inner observables as level timelines in lanes below
/// it, joined to their subscription points by vertical connectors), the operator box, the output timeline (with the observables it
/// emitted, such as windows, drawn the same way), and, when it differs,
/// the expected timeline, with the differing frames highlighted on both.
public struct DiagramLayout {
    /// Points per frame.
    public var frameWidth: Double
    /// Marble radius in points.
    public var radius: Double
    /// Label size in points.
    public var fontSize: Double
    /// Margin around the drawing, in points.
    public var padding: Double = 20
    /// Whether long idle stretches are squeezed when the diagram would be wider than
    /// `DiagramSpec.Style.maxWidth` (the spec's `style: gaps`).
    public var compressesGaps: Bool
    let measurer: any TextMeasurer

    /// A layout with a spec's style and a way to measure text.
    public init(style: DiagramSpec.Style = .init(), measurer: any TextMeasurer = ApproximateTextMeasurer()) {
        self.frameWidth = style.frameWidth
        self.radius = style.radius
        self.fontSize = (style.radius * 0.9).rounded()
        self.compressesGaps = style.compressesGaps
        self.measurer = measurer
    }

    /// The display list of a computed diagram: timelines, marbles, inner observables, the operator box and any mismatch highlights.
    public func layout(_ original: DiagramModel) -> DisplayList {
        // Long idle stretches drawn short when the diagram would not fit the width otherwise; the
        // frames may then widen for the marks that come closer, so squeeze again at that width.
        var axis: TimeAxis?
        var model = original
        var fitted = self
        fitted.frameWidth = fittedFrameWidth(model)
        if compressesGaps {
            for _ in 0..<3 {
                let frames = ((DiagramSpec.Style.maxWidth - 2 * padding - 60) / fitted.frameWidth).rounded(.down)
                guard original.frames + 2 > frames else { break }
                axis = TimeAxis(original, fit: frames, frameWidth: fitted.frameWidth)
                model = axis.map { $0.apply(to: original) } ?? original
                let width = fittedFrameWidth(model)
                if width <= fitted.frameWidth { break }
                fitted.frameWidth = width
            }
            if axis?.isEmpty == true { axis = nil }
        }
        // Frames widen until no two neighbouring marbles (or a marble and a bar) touch.
        fitted.frameWidth = fittedFrameWidth(model)
        var pass = LayoutPass(layout: fitted, model: model)
        var y = padding
        for input in model.inputs {
            let h = pass.rowHeight(input)
            pass.drawTimeline(input, centerY: y + h / 2)
            pass.drawInners(input, parentY: y + h / 2)
            y += h + pass.innerBand(input) + pass.windowBand(input)
        }
        y = pass.drawOperator(model, top: y)
        for t in model.outputs {
            let h = pass.rowHeight(t)
            pass.drawTimeline(t, centerY: y + h / 2)
            pass.drawInners(t, parentY: y + h / 2)
            y += h + pass.innerBand(t) + pass.windowBand(t)
        }
        for timeBreak in axis?.breaks ?? [] { pass.drawBreak(timeBreak) }
        let height = (y + padding * 0.6).rounded(.up)
        let background = DrawItem.rect(origin: Point(0, 0), width: pass.width, height: height, fill: .background, stroke: nil, opacity: 1)
        return DisplayList(
            width: pass.width, height: height, items: [background] + pass.boxItems + Self.linesBehindMarks(pass.timelineItems),
            title: model.title,
            summary: Self.summary(of: original))
    }

    /// Lines (timelines, inner branches and their connectors) first, marks and text on top:
    /// a connector that passes another lane goes behind its marbles, not across them.
    static func linesBehindMarks(_ items: [DrawItem]) -> [DrawItem] {
        let isLine = { (item: DrawItem) -> Bool in
            switch item {
            case .line, .arrowHead, .rect: true
            default: false
            }
        }
        return items.filter(isLine) + items.filter { !isLine($0) }
    }

    /// The diagram in words: one sentence per timeline, the operator between inputs and output.
    static func summary(of model: DiagramModel) -> String {
        func frame(_ f: Double) -> String { f == f.rounded() ? "\(Int(f))" : "\(f)" }
        func words(_ events: [TimelineEvent]) -> String {
            let parts = events.map { event -> String in
                switch event.kind {
                case .value(let label): return "\(label) at frame \(frame(event.frame))"
                case .complete: return "completes at frame \(frame(event.frame))"
                case .error: return "fails at frame \(frame(event.frame))"
                }
            }
            return parts.isEmpty ? "nothing" : parts.joined(separator: ", ")
        }
        func sentence(_ t: TimelineModel) -> String {
            var text = "\(t.name): \(words(t.events))."
            if let life = t.lifetime {
                text += " Subscribes at frame \(frame(life.start))" + (life.end.map { ", unsubscribes at \(frame($0))" } ?? "") + "."
            }
            if !t.subscriptions.isEmpty, t.lifetime == nil {
                let spans = t.subscriptions.map { w in "from frame \(frame(w.start))" + (w.end.map { " to \(frame($0))" } ?? " on") }
                text += " Subscribed \(spans.joined(separator: ", then "))."
            }
            for inner in t.inners {
                let shifted = inner.events.map { TimelineEvent(frame: inner.start + $0.frame, kind: $0.kind) }
                text += " Inner from frame \(frame(inner.start)): \(words(shifted))."
            }
            return text
        }
        var lines = model.inputs.map(sentence)
        if let label = model.operatorLabel { lines.append("Operator: \(label).") }
        lines += model.outputs.map(sentence)
        if model.mismatchMessage != nil, !model.failed {
            let frames = Set(model.outputs.flatMap(\.highlights)).sorted().map(frame)
            lines.append(
                "The expected output does not hold"
                    + (frames.isEmpty ? "." : " at frame\(frames.count == 1 ? "" : "s") \(frames.joined(separator: ", "))."))
        }
        return lines.joined(separator: " ")
    }
}
