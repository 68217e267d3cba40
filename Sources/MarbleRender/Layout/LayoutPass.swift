/// One layout of one diagram: the horizontal geometry every row shares, and the items drawn
/// so far, by stage (rows, inner observables, operator box).
struct LayoutPass {
    let layout: DiagramLayout
    let showNames: Bool
    let nameSize: Double
    /// Where frame 0's cell starts, after the names' gutter.
    let x0: Double
    /// Where timelines end (two frames past the last).
    let lineEnd: Double
    let width: Double
    var boxItems: [DrawItem] = []
    var timelineItems: [DrawItem] = []

    init(layout: DiagramLayout, model: DiagramModel) {
        self.layout = layout
        let showNames =
            model.inputs.count > 1 || model.operatorLabel == nil || model.expected != nil
            || model.inputs.contains { $0.name != "source" }
        self.showNames = showNames
        let rows = model.inputs + [model.output] + [model.expected].compactMap { $0 }
        let nameSize = layout.fontSize * 0.95
        self.nameSize = nameSize
        let gutter = showNames ? (rows.map { layout.measurer.width(of: $0.name, size: nameSize) }.max() ?? 0) + 16 : 0
        let x0 = layout.padding + gutter
        self.x0 = x0
        // Wide enough for the operator's label: a short diagram must not cut its box's text.
        let label = model.operatorLabel.map { layout.measurer.width(of: $0, size: layout.fontSize * 1.05) + layout.frameWidth } ?? 0
        let lineEnd = Swift.max(x0 + (max(model.frames, 1) + 2) * layout.frameWidth, x0 + label)
        self.lineEnd = lineEnd
        width = (lineEnd + layout.padding).rounded(.up)
    }

    var radius: Double { layout.radius }
    var fontSize: Double { layout.fontSize }
    var frameWidth: Double { layout.frameWidth }

    /// The centre of a frame's cell.
    func x(_ frame: Double) -> Double { x0 + (frame + 0.5) * frameWidth }

    func rowHeight(_ t: TimelineModel) -> Double {
        let stacked = Dictionary(grouping: t.events.filter(\.isValue), by: \.frame).values.map(\.count).max() ?? 1
        return max(radius * 2 + 26, Double(stacked) * radius * 1.9 + 20)
    }

    /// The height of one lane of inner timelines.
    var laneHeight: Double { radius * 4 + 10 }

    func innerBand(_ t: TimelineModel) -> Double {
        t.inners.isEmpty ? 0 : Double(innerLanes(t).count) * laneHeight + innerLift(t)
    }

    /// Inners that run at the same time get lanes of their own, one below the other, so they
    /// never cross: each inner takes the first lane whose previous inner has ended.
    func innerLanes(_ t: TimelineModel) -> (lane: [Int], count: Int) {
        var laneEnds: [Double] = []
        var lanes: [Int] = []
        for inner in t.inners {
            let end = inner.start + (inner.events.map(\.frame).max() ?? 0)
            if let free = laneEnds.firstIndex(where: { $0 <= inner.start }) {
                laneEnds[free] = end
                lanes.append(free)
            } else {
                laneEnds.append(end)
                lanes.append(laneEnds.count - 1)
            }
        }
        return (lanes, laneEnds.count)
    }

    /// How far below the parent the inners start: a marble lower when an inner has an event at
    /// its own start (a window's first value), which would otherwise sit on the parent's marble.
    func innerLift(_ t: TimelineModel) -> Double {
        t.inners.contains { inner in inner.events.contains { $0.frame == 0 && $0.isValue } } ? radius + 2 : 0
    }

    /// A marble's width: round for short labels, a pill for long ones.
    func marbleWidth(_ label: String) -> Double { max(radius * 2, layout.measurer.width(of: label, size: fontSize) + radius * 1.1) }

    mutating func drawTimeline(_ t: TimelineModel, centerY: Double) {
        if showNames {
            timelineItems.append(
                .text(
                    t.name, at: Point(layout.padding, centerY + nameSize * 0.35), size: nameSize, color: .text, anchor: .left, bold: false))
        }
        for frame in t.highlights {
            timelineItems.append(
                .rect(
                    origin: Point(x(frame) - frameWidth / 2, centerY - rowHeight(t) / 2 + 4), width: frameWidth,
                    height: rowHeight(t) - 8, fill: .highlight, stroke: nil, opacity: 0.22))
        }
        // The line stops at a completion or error, with an arrow only when it goes on.
        let terminal = t.events.first { !$0.isValue }
        let end = terminal.map { self.x($0.frame) } ?? lineEnd
        timelineItems.append(.line(from: Point(x0, centerY), to: Point(end, centerY), color: .line, width: 2, dashed: false, opacity: 1))
        if terminal == nil {
            timelineItems.append(.arrowHead(tip: Point(lineEnd, centerY), from: Point(x0, centerY), size: 9, color: .line, opacity: 1))
        }
        let cellCenter = self.x
        drawEvents(t.events, at: { f in Point(cellCenter(f), centerY) }, opacity: { _ in 1 })
    }

    mutating func drawEvents(_ events: [TimelineEvent], at position: (Double) -> Point, opacity: (Double) -> Double) {
        for (frame, group) in Dictionary(grouping: events, by: \.frame).sorted(by: { $0.key < $1.key }) {
            let values = group.filter(\.isValue)
            let p = position(frame)
            for (i, event) in values.enumerated() {
                guard case .value(let label) = event.kind else { continue }
                let offset = (Double(i) - Double(values.count - 1) / 2) * radius * 1.9
                timelineItems.append(
                    .marble(
                        center: Point(p.x, p.y + offset), width: marbleWidth(label), radius: radius,
                        fill: .marble(paletteIndex(for: label)), stroke: .marbleStroke, label: label, fontSize: fontSize,
                        opacity: opacity(frame)))
            }
            // A terminal event in the same frame as values sits just right of them.
            let widest = values.map { v -> Double in
                guard case .value(let label) = v.kind else { return 0 }
                return marbleWidth(label) / 2
            }.max()
            let shift = widest.map { $0 + 5 } ?? 0
            for event in group where !event.isValue {
                let c = Point(p.x + shift, p.y)
                switch event.kind {
                case .complete: timelineItems.append(.bar(center: c, halfHeight: radius * 0.95, color: .line, opacity: opacity(frame)))
                case .error: timelineItems.append(.cross(center: c, size: radius * 0.7, color: .failure, opacity: opacity(frame)))
                case .value: break
                }
            }
        }
    }

    /// Inner observables as slanted lines from their subscription points, faded after an
    /// early unsubscription.
    mutating func drawInners(_ t: TimelineModel, parentY: Double) {
        let drop = laneHeight + radius * 0.5
        let lanes = innerLanes(t).lane
        let lift = innerLift(t)
        for (index, inner) in t.inners.enumerated() {
            let length = (inner.events.map(\.frame).max() ?? 0) + 1
            let startX = x(inner.start)
            let startY = parentY + radius + 2 + lift + Double(lanes[index]) * laneHeight
            if startY > parentY + radius + 2 {
                timelineItems.append(
                    .line(
                        from: Point(startX, parentY + radius + 2), to: Point(startX, startY), color: .line, width: 1.5, dashed: false,
                        opacity: 1))
            }
            let slope = (drop - radius) / max(length * frameWidth, frameWidth)
            let cellCenter = self.x
            let point = { (f: Double) in Point(cellCenter(inner.start + f), startY + slope * (cellCenter(inner.start + f) - startX)) }
            let cut = inner.fadedAfter
            let terminal = inner.events.first { !$0.isValue }
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

    /// The operator box (or a "failing test" note when there is no operator); returns the y
    /// below it.
    mutating func drawOperator(_ model: DiagramModel, top: Double) -> Double {
        var y = top
        if let label = model.operatorLabel {
            let boxHeight = fontSize * 2.6
            y += 6
            let text = model.failed ? label + "   (failing test)" : label
            boxItems.append(
                .rect(
                    origin: Point(x0 - frameWidth * 0.25, y), width: lineEnd - x0 + frameWidth * 0.25, height: boxHeight,
                    fill: .boxFill, stroke: model.failed ? .failure : .boxStroke, opacity: 1))
            boxItems.append(
                .text(
                    text, at: Point((x0 + lineEnd) / 2, y + boxHeight / 2 + fontSize * 0.36), size: fontSize * 1.05,
                    color: model.failed ? .failure : .text, anchor: .center, bold: false))
            y += boxHeight + 6
        } else if model.failed {
            boxItems.append(.text("failing test", at: Point(x0, y + fontSize), size: fontSize, color: .failure, anchor: .left, bold: true))
            y += fontSize * 1.6
        }
        return y
    }
}

extension TimelineEvent {
    var isValue: Bool {
        if case .value = kind { return true }
        return false
    }
}
