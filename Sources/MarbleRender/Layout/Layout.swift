/// Turns a ``DiagramModel`` into a ``DisplayList``: pure geometry, no Cairo.
///
/// Top to bottom: each input timeline (its inner observables as slanted timelines from
/// their subscription points), the operator box, the output timeline, and, when it differs,
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
        var items: [DrawItem] = []
        let showNames =
            model.inputs.count > 1 || model.operatorLabel == nil || model.expected != nil
            || model.inputs.contains { $0.name != "source" }
        let rows = model.inputs + [model.output] + [model.expected].compactMap { $0 }
        let nameSize = fontSize * 0.95
        let gutter = showNames ? (rows.map { measurer.width(of: $0.name, size: nameSize) }.max() ?? 0) + 16 : 0
        let x0 = padding + gutter
        let frames = max(model.frames, 1)
        let lineEnd = x0 + (frames + 2) * frameWidth
        let width = (lineEnd + padding).rounded(.up)
        func x(_ frame: Double) -> Double { x0 + (frame + 0.5) * frameWidth }

        var y = padding
        var timelineItems: [DrawItem] = []

        func rowHeight(_ t: TimelineModel) -> Double {
            let stacked =
                Dictionary(grouping: t.events.filter { if case .value = $0.kind { return true } else { return false } }, by: \.frame)
                .values.map(\.count).max() ?? 1
            return max(radius * 2 + 26, Double(stacked) * radius * 1.9 + 20)
        }
        func innerBand(_ t: TimelineModel) -> Double { t.inners.isEmpty ? 0 : radius * 4 + 10 }

        func drawTimeline(_ t: TimelineModel, centerY: Double) {
            if showNames {
                timelineItems.append(
                    .text(t.name, at: Point(padding, centerY + nameSize * 0.35), size: nameSize, color: .text, anchor: .left, bold: false))
            }
            for frame in t.highlights {
                timelineItems.append(
                    .rect(
                        origin: Point(x(frame) - frameWidth / 2, centerY - rowHeight(t) / 2 + 4), width: frameWidth,
                        height: rowHeight(t) - 8, fill: .highlight, stroke: nil, opacity: 0.22))
            }
            // The line stops at a completion or error, with an arrow only when it goes on.
            let terminal = t.events.first { !isValue($0) }
            let end = terminal.map { x($0.frame) } ?? lineEnd
            timelineItems.append(
                .line(from: Point(x0, centerY), to: Point(end, centerY), color: .line, width: 2, dashed: false, opacity: 1))
            if terminal == nil {
                timelineItems.append(.arrowHead(tip: Point(lineEnd, centerY), from: Point(x0, centerY), size: 9, color: .line, opacity: 1))
            }
            drawEvents(t.events, at: { f in Point(x(f), centerY) }, opacity: { _ in 1 })
        }

        func drawEvents(_ events: [TimelineEvent], at position: (Double) -> Point, opacity: (Double) -> Double) {
            let groups = Dictionary(grouping: events, by: \.frame).sorted { $0.key < $1.key }
            for (frame, group) in groups {
                let values = group.filter(isValue)
                let p = position(frame)
                for (i, event) in values.enumerated() {
                    guard case .value(let label) = event.kind else { continue }
                    let offset = (Double(i) - Double(values.count - 1) / 2) * radius * 1.9
                    let labelWidth = measurer.width(of: label, size: fontSize)
                    let w = max(radius * 2, labelWidth + radius * 1.1)
                    timelineItems.append(
                        .marble(
                            center: Point(p.x, p.y + offset), width: w, radius: radius, fill: .marble(paletteIndex(for: label)),
                            stroke: .marbleStroke, label: label, fontSize: fontSize, opacity: opacity(frame)))
                }
                // A terminal event in the same frame as values sits just right of them.
                let shift =
                    values.isEmpty
                    ? 0
                    : (values.map { v -> Double in
                        guard case .value(let label) = v.kind else { return 0 }
                        return max(radius * 2, measurer.width(of: label, size: fontSize) + radius * 1.1) / 2
                    }.max() ?? 0) + 5
                for event in group where !isValue(event) {
                    let c = Point(p.x + shift, p.y)
                    switch event.kind {
                    case .complete: timelineItems.append(.bar(center: c, halfHeight: radius * 0.95, color: .line, opacity: opacity(frame)))
                    case .error: timelineItems.append(.cross(center: c, size: radius * 0.7, color: .failure, opacity: opacity(frame)))
                    case .value: break
                    }
                }
            }
        }

        func drawInners(_ t: TimelineModel, parentY: Double) {
            let drop = innerBand(t) + radius * 0.5
            for inner in t.inners {
                let length = (inner.events.map(\.frame).max() ?? 0) + 1
                let startX = x(inner.start)
                let startY = parentY + radius + 2
                let slope = (drop - radius) / max(length * frameWidth, frameWidth)
                func point(_ f: Double) -> Point { Point(x(inner.start + f), startY + slope * (x(inner.start + f) - startX)) }
                let cut = inner.fadedAfter
                let terminal = inner.events.first { !isValue($0) }
                let endFrame = terminal?.frame ?? length
                if let cut, cut < endFrame {
                    if cut > 0 {
                        timelineItems.append(.line(from: point(0), to: point(cut), color: .line, width: 1.5, dashed: false, opacity: 1))
                    }
                    timelineItems.append(
                        .line(from: point(max(cut, 0)), to: point(endFrame), color: .line, width: 1.5, dashed: true, opacity: 0.35))
                } else {
                    timelineItems.append(.line(from: point(0), to: point(endFrame), color: .line, width: 1.5, dashed: false, opacity: 1))
                }
                if terminal == nil {
                    timelineItems.append(
                        .arrowHead(tip: point(endFrame), from: point(0), size: 7, color: .line, opacity: cut == nil ? 1 : 0.35))
                }
                drawEvents(inner.events, at: point, opacity: { f in (cut.map { f > $0 || ($0 == 0 && f == 0) } ?? false) ? 0.3 : 1 })
            }
        }

        for input in model.inputs {
            let h = rowHeight(input)
            drawTimeline(input, centerY: y + h / 2)
            drawInners(input, parentY: y + h / 2)
            y += h + innerBand(input)
        }
        if let label = model.operatorLabel {
            let boxHeight = fontSize * 2.6
            y += 6
            let text = model.failed ? label + "   (failing test)" : label
            items.append(
                .rect(
                    origin: Point(x0 - frameWidth * 0.25, y), width: lineEnd - x0 + frameWidth * 0.25, height: boxHeight,
                    fill: .boxFill, stroke: model.failed ? .failure : .boxStroke, opacity: 1))
            items.append(
                .text(
                    text, at: Point((x0 + lineEnd) / 2, y + boxHeight / 2 + fontSize * 0.36), size: fontSize * 1.05,
                    color: model.failed ? .failure : .text, anchor: .center, bold: false))
            y += boxHeight + 6
        } else if model.failed {
            items.append(.text("failing test", at: Point(x0, y + fontSize), size: fontSize, color: .failure, anchor: .left, bold: true))
            y += fontSize * 1.6
        }
        for t in [model.output] + [model.expected].compactMap({ $0 }) {
            let h = rowHeight(t)
            drawTimeline(t, centerY: y + h / 2)
            y += h
        }
        let height = (y + padding * 0.6).rounded(.up)
        let background = DrawItem.rect(origin: Point(0, 0), width: width, height: height, fill: .background, stroke: nil, opacity: 1)
        return DisplayList(width: width, height: height, items: [background] + items + timelineItems)
    }

    private func isValue(_ e: TimelineEvent) -> Bool {
        if case .value = e.kind { return true }
        return false
    }
}
