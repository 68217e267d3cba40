/// Turns a `DiagramModel` into a ``DisplayList``: pure geometry, no Cairo.
///
/// Top to bottom: each input timeline (its inner observables as slanted timelines from
/// their subscription points), the operator box, the output timeline (with the observables it
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
    let measurer: any TextMeasurer

    /// A layout with a spec's style and a way to measure text.
    public init(style: DiagramSpec.Style = .init(), measurer: any TextMeasurer = ApproximateTextMeasurer()) {
        self.frameWidth = style.frameWidth
        self.radius = style.radius
        self.fontSize = (style.radius * 0.9).rounded()
        self.measurer = measurer
    }

    /// The display list of a computed diagram: timelines, marbles, inner observables, the operator box and any mismatch highlights.
    public func layout(_ model: DiagramModel) -> DisplayList {
        var pass = LayoutPass(layout: self, model: model)
        var y = padding
        for input in model.inputs {
            let h = pass.rowHeight(input)
            pass.drawTimeline(input, centerY: y + h / 2)
            pass.drawInners(input, parentY: y + h / 2)
            y += h + pass.innerBand(input)
        }
        y = pass.drawOperator(model, top: y)
        for t in [model.output] + [model.expected].compactMap({ $0 }) {
            let h = pass.rowHeight(t)
            pass.drawTimeline(t, centerY: y + h / 2)
            pass.drawInners(t, parentY: y + h / 2)
            y += h + pass.innerBand(t)
        }
        let height = (y + padding * 0.6).rounded(.up)
        let background = DrawItem.rect(origin: Point(0, 0), width: pass.width, height: height, fill: .background, stroke: nil, opacity: 1)
        return DisplayList(width: pass.width, height: height, items: [background] + pass.boxItems + pass.timelineItems)
    }
}
