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
            model.inputs.count > 1 || model.operatorLabel == nil || model.expected != nil || !model.moreOutputs.isEmpty
            || model.inputs.contains { $0.name != "source" }
        self.showNames = showNames
        let rows = model.inputs + model.outputs
        let nameSize = layout.fontSize * 0.95
        self.nameSize = nameSize
        let gutter = showNames ? (rows.map { layout.measurer.width(of: $0.name, size: nameSize) }.max() ?? 0) + 16 : 0
        let overhang = layout.overhangs(model)
        let x0 = layout.padding + gutter + overhang.left
        self.x0 = x0
        // Wide enough for the operator's label: a short diagram must not cut its box's text.
        let label = Self.operatorText(model).map { layout.measurer.width(of: $0, size: layout.fontSize * 1.05) + layout.frameWidth } ?? 0
        let lineEnd = Swift.max(x0 + (max(model.frames, 1) + 2) * layout.frameWidth + overhang.right, x0 + label)
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
        return max(radius * 2 + 26, Double(stacked) * radius * DiagramLayout.stackSpacing + 20)
    }

    /// The height of one lane of inner timelines.
    var laneHeight: Double { radius * 2 + 14 }

    /// How opaque a ghost (what an inner would have done after it was unsubscribed) is drawn:
    /// faded, yet at 3:1 contrast against the background in both themes (tested).
    static let ghostOpacity = 0.6
    /// The same for an error's ✕, whose red needs more opacity for 3:1 on the light background.
    static let ghostErrorOpacity = 0.7

    func innerBand(_ t: TimelineModel) -> Double {
        t.inners.isEmpty ? 0 : Double(innerLanes(t).count) * laneHeight + innerLift(t)
    }

    func innerLanes(_ t: TimelineModel) -> (lane: [Int], count: Int) { layout.lanes(of: t.inners) }

    /// How far below the parent the inners start: a marble lower, so that no inner mark sits
    /// on one of the parent's (a window's first value at its own start, a late inner event
    /// under a later parent marble).
    func innerLift(_ t: TimelineModel) -> Double { t.inners.isEmpty ? 0 : radius + 2 + windowBand(t) }

    /// Room for subscription windows under a timeline: one thin bracket per lane.
    func windowBand(_ t: TimelineModel) -> Double { t.subscriptions.isEmpty ? 0 : Double(windowLanes(t).count) * 7 + 2 }

    /// Windows that overlap in time (several subscribers) get lanes; resubscriptions share one.
    func windowLanes(_ t: TimelineModel) -> (lane: [Int], count: Int) {
        DiagramLayout.firstFreeLanes(t.subscriptions.map { ($0.start, $0.end ?? .infinity) }, margin: 0)
    }

    /// Subscription windows as thin brackets under the timeline, from subscription to
    /// unsubscription (to the arrow while still subscribed).
    mutating func drawSubscriptions(_ t: TimelineModel, centerY: Double) {
        let lanes = windowLanes(t).lane
        for (index, window) in t.subscriptions.enumerated() {
            let y = centerY + radius + 6 + Double(lanes[index]) * 7
            let start = x(window.start)
            let end = window.end.map { x($0) } ?? lineEnd
            timelineItems.append(.line(from: Point(start, y), to: Point(end, y), color: .line, width: 1.5, dashed: false, opacity: 0.55))
            timelineItems.append(
                .line(from: Point(start, y - 4), to: Point(start, y + 2), color: .line, width: 1.5, dashed: false, opacity: 0.55))
            if window.end != nil {
                timelineItems.append(
                    .line(from: Point(end, y - 4), to: Point(end, y + 2), color: .line, width: 1.5, dashed: false, opacity: 0.55))
            }
        }
    }

    func marbleWidth(_ label: String) -> Double { layout.marbleWidth(label) }

    /// The operator box's text: a failing test's picture, and a spec whose `expected:` line
    /// does not hold, say so there.
    static func operatorText(_ model: DiagramModel) -> String? {
        model.operatorLabel.map { label in
            if model.failed { return label + "   (failing test)" }
            return model.mismatchMessage != nil ? label + "   (expected output does not hold)" : label
        }
    }

    /// Whether the picture shows a failure: a failing test, or an `expected:` line that does not hold.
    static func showsFailure(_ model: DiagramModel) -> Bool { model.failed || model.mismatchMessage != nil }

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
        // The line stops at a completion or error, with an arrow only when it goes on. A
        // subscriber's line runs from its subscription to its unsubscription (its bracket below
        // marks both, as an input's subscriptions are marked).
        let terminal = t.events.first { !$0.isValue }
        let start = t.lifetime.map { x($0.start) } ?? x0
        let cut = t.lifetime?.end.map { x($0) }
        let end = terminal.map { self.x($0.frame) } ?? cut ?? lineEnd
        timelineItems.append(.line(from: Point(start, centerY), to: Point(end, centerY), color: .line, width: 2, dashed: false, opacity: 1))
        if terminal == nil, cut == nil {
            timelineItems.append(.arrowHead(tip: Point(lineEnd, centerY), from: Point(start, centerY), size: 9, color: .line, opacity: 1))
        }

        let cellCenter = self.x
        drawEvents(t.events, at: { f in Point(cellCenter(f), centerY) }, opacity: { _ in 1 })
        drawSubscriptions(t, centerY: centerY)
    }

    /// Draws `events` at their frames; `opacity` takes an event's index in `events`.
    mutating func drawEvents(_ events: [TimelineEvent], at position: (Double) -> Point, opacity: (Int) -> Double) {
        let indexed = events.indices.map { (index: $0, event: events[$0]) }
        for (frame, entries) in Dictionary(grouping: indexed, by: \.event.frame).sorted(by: { $0.key < $1.key }) {
            let values = entries.filter(\.event.isValue)
            let p = position(frame)
            for (i, entry) in values.enumerated() {
                guard case .value(let label) = entry.event.kind else { continue }
                let offset = (Double(i) - Double(values.count - 1) / 2) * radius * DiagramLayout.stackSpacing
                timelineItems.append(
                    .marble(
                        center: Point(p.x, p.y + offset), width: marbleWidth(label), radius: radius,
                        fill: .marble(paletteIndex(for: label)), stroke: .marbleStroke, label: label, fontSize: fontSize,
                        opacity: opacity(entry.index)))
            }
            // A terminal event in the same frame as values sits just right of them.
            let widest = values.map { v -> Double in
                guard case .value(let label) = v.event.kind else { return 0 }
                return marbleWidth(label) / 2
            }.max()
            for entry in entries where !entry.event.isValue {
                let event = entry.event
                let shift = widest.map { $0 + DiagramLayout.terminalGap + layout.terminalHalfWidth(event.kind) } ?? 0
                let c = Point(p.x + shift, p.y)
                let alpha = opacity(entry.index)
                switch event.kind {
                case .complete: timelineItems.append(.bar(center: c, halfHeight: radius * 0.95, color: .line, opacity: alpha))
                case .error:
                    let crossAlpha = alpha < 1 ? max(alpha, Self.ghostErrorOpacity) : alpha
                    timelineItems.append(.cross(center: c, size: radius * 0.7, color: .failure, opacity: crossAlpha))
                case .value: break
                }
            }
        }
    }

    /// Inner observables as level lines in their lanes, joined to their subscription points by a
    /// vertical connector, faded after an early unsubscription.
    mutating func drawInners(_ t: TimelineModel, parentY: Double) {
        let lanes = innerLanes(t).lane
        let lift = innerLift(t)
        for (index, inner) in t.inners.enumerated() {
            let length = (inner.events.map(\.frame).max() ?? 0) + 1
            let startX = x(inner.start)
            let startY = parentY + radius + 2 + lift + Double(lanes[index]) * laneHeight
            drawConnector(from: Point(startX, parentY + radius + 2), to: startY, side: connectorSide(index, of: t.inners, lanes: lanes))
            let cellCenter = self.x
            let point = { (f: Double) in Point(cellCenter(inner.start + f), startY) }
            let cut = inner.fadedAfter
            let terminal = inner.events.first { !$0.isValue }
            let endFrame = terminal?.frame ?? length
            if let cut, cut < endFrame {
                if cut > 0 {
                    timelineItems.append(.line(from: point(0), to: point(cut), color: .line, width: 1.5, dashed: false, opacity: 1))
                }
                timelineItems.append(
                    .line(from: point(max(cut, 0)), to: point(endFrame), color: .line, width: 1.5, dashed: true, opacity: Self.ghostOpacity)
                )
            } else {
                timelineItems.append(.line(from: point(0), to: point(endFrame), color: .line, width: 1.5, dashed: false, opacity: 1))
            }
            if terminal == nil {
                timelineItems.append(
                    .arrowHead(tip: point(endFrame), from: point(0), size: 7, color: .line, opacity: cut == nil ? 1 : Self.ghostOpacity))
            }
            drawEvents(inner.events, at: point, opacity: { inner.isDelivered($0) ? 1 : Self.ghostOpacity })
        }
    }

    /// The line from an inner's subscription point down to its lane: straight down, or, when
    /// a mark of a lane above stands in the way (two inners starting at one frame, both with a
    /// mark there: the case lane choice cannot avoid), a step aside under the parent line to
    /// `side`, down there, and along the lane back to the start.
    mutating func drawConnector(from top: Point, to laneY: Double, side: Double?) {
        guard laneY > top.y else { return }
        var path = [top, Point(top.x, laneY)]
        if let side {
            path = [top, Point(side, top.y), Point(side, laneY), Point(top.x, laneY)]
        }
        for (from, to) in zip(path, path.dropFirst()) {
            timelineItems.append(.line(from: from, to: to, color: .line, width: 1.5, dashed: false, opacity: 1))
        }
    }

    /// Where an inner's connector goes down: `nil` for straight under its start, else the
    /// nearest x to its left that no mark of a lane above covers, and that the inner's own
    /// lane leaves free (past the end of its previous inner); else just right of the marks.
    func connectorSide(_ index: Int, of inners: [InnerTimelineModel], lanes: [Int]) -> Double? {
        let above = inners.indices.filter { lanes[$0] < lanes[index] }.flatMap { other in
            layout.extents(inners[other].events).map { mark in
                let center = x(inners[other].start + mark.frame)
                return (center - mark.left - 2)...(center + mark.right + 2)
            }
        }
        let start = x(inners[index].start)
        let clear = { (x: Double) in !above.contains { $0.contains(x) } }
        if clear(start) { return nil }
        // The lane is free from the end of the inner before this one in it.
        let laneFree =
            inners.indices.filter { lanes[$0] == lanes[index] && inners[$0].start < inners[index].start }
            .map { x(inners[$0].start + DiagramLayout.drawnLength(inners[$0])) + 6 }.max() ?? x0
        var candidate = (above.filter { $0.contains(start) }.map(\.lowerBound).min() ?? start) - 1
        while candidate > laneFree {
            if clear(candidate) { return candidate }
            candidate -= 2
        }
        let right = (above.filter { $0.contains(start) }.map(\.upperBound).max() ?? start) + 1
        return clear(right) ? right : nil
    }

    /// A squeezed stretch: every horizontal line that crosses it is cut there with a break
    /// mark (`//`), and its real duration is written above the topmost one.
    mutating func drawBreak(_ timeBreak: TimeBreak) {
        let center = x(timeBreak.at)
        let crossing = timelineItems.compactMap { item -> Double? in
            guard case .line(let from, let to, _, _, _, _) = item, from.y == to.y,
                Swift.min(from.x, to.x) < center - 6, Swift.max(from.x, to.x) > center + 6
            else { return nil }
            return from.y
        }
        for y in Set(crossing).sorted() {
            timelineItems.append(.rect(origin: Point(center - 6, y - 4), width: 12, height: 8, fill: .background, stroke: nil, opacity: 1))
            for offset in [-3.5, 3.5] {
                timelineItems.append(
                    .line(
                        from: Point(center + offset - 3, y + 6), to: Point(center + offset + 3, y - 6), color: .line, width: 1.5,
                        dashed: false, opacity: 1))
            }
        }
        if let top = crossing.min() {
            timelineItems.append(
                .text(
                    timeBreak.label, at: Point(center, top - radius - 4), size: fontSize * 0.8, color: .text, anchor: .center,
                    bold: false))
        }
    }

    /// The operator box (or a "failing test" note when there is no operator); returns the y
    /// below it.
    mutating func drawOperator(_ model: DiagramModel, top: Double) -> Double {
        var y = top
        if let label = model.operatorLabel {
            let boxHeight = fontSize * 2.6
            y += 6
            let text = Self.operatorText(model) ?? label
            boxItems.append(
                .rect(
                    origin: Point(x0 - frameWidth * 0.25, y), width: lineEnd - x0 + frameWidth * 0.25, height: boxHeight,
                    fill: .boxFill, stroke: Self.showsFailure(model) ? .failure : .boxStroke, opacity: 1))
            boxItems.append(
                .text(
                    text, at: Point((x0 + lineEnd) / 2, y + boxHeight / 2 + fontSize * 0.36), size: fontSize * 1.05,
                    color: Self.showsFailure(model) ? .failure : .text, anchor: .center, bold: false))
            y += boxHeight + 6
        } else if Self.showsFailure(model) {
            let note = model.failed ? "failing test" : "expected output does not hold"
            boxItems.append(.text(note, at: Point(x0, y + fontSize), size: fontSize, color: .failure, anchor: .left, bold: true))
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

extension DiagramLayout {
    /// Centre-to-centre distance of values stacked in one frame, in radii.
    static let stackSpacing = 2.15
    /// The space between a marble and a completion or error mark in its frame.
    static let terminalGap = 5.0
    /// The least space between neighbouring marks on a line.
    static let markGap = 4.0

    /// A marble's width: round for short labels, a pill for long ones.
    func marbleWidth(_ label: String) -> Double { max(radius * 2, measurer.width(of: label, size: fontSize) + radius * 1.1) }

    /// Inners that run at the same time get lanes of their own, one below the other, so they
    /// never cross; they read top to bottom in the order they were subscribed. An inner holds
    /// its lane to the end of its drawn line, its faded (unsubscribed) part included. Each
    /// inner, earliest first, takes the first lane that is free in time (a frame of margin)
    /// where its connector (the vertical line from its start down to its lane) meets no mark
    /// above it and no connector of an inner below meets one of its marks; when none is (a
    /// later inner that starts where an earlier one still has a mark, as `flatMapLatest`'s
    /// switch), the first lane free in time, and its connector steps aside
    /// (`LayoutPass.drawConnector(from:to:side:)`).
    func lanes(of inners: [InnerTimelineModel]) -> (lane: [Int], count: Int) {
        let inOrder = assignLanes(inners, latestFirst: false)
        if inOrder.routed { return (inOrder.lane, inOrder.count) }
        // Some connector meets marks wherever it goes down: the earlier design, latest inners
        // on top, whose connectors stand left of everything a later inner draws.
        let latestFirst = assignLanes(inners, latestFirst: true)
        return latestFirst.routed ? (latestFirst.lane, latestFirst.count) : (inOrder.lane, inOrder.count)
    }

    /// Lanes taken in subscription order (or latest first), and whether every connector finds
    /// a way down that meets no mark: straight, or stepping aside (as
    /// `LayoutPass.connectorSide` does, here in frames of the narrowest width).
    func assignLanes(_ inners: [InnerTimelineModel], latestFirst: Bool) -> (lane: [Int], count: Int, routed: Bool) {
        let spans = inners.map { (start: $0.start, end: $0.start + Self.drawnLength($0)) }
        let marks = inners.map(markReach)
        var lanes = Array(repeating: -1, count: inners.count)
        var count = 0
        var routedAll = true
        let order = inners.indices.sorted { (inners[$0].start, $0) < (inners[$1].start, $1) }
        for i in latestFirst ? order.reversed() : order {
            func fits(_ lane: Int, routed: Bool) -> Bool {
                for j in inners.indices where lanes[j] >= 0 {
                    if lanes[j] == lane, spans[j].start < spans[i].end + 1, spans[i].start < spans[j].end + 1 { return false }
                    guard routed else { continue }
                    if lanes[j] < lane, Self.reaches(marks[j], inners[i].start) { return false }
                    if lanes[j] > lane, Self.reaches(marks[i], inners[j].start) { return false }
                }
                return true
            }
            // A new lane (`count`) is always free in time, so the second search always finds one.
            if let lane = (0...count).first(where: { fits($0, routed: true) }) {
                lanes[i] = lane
            } else {
                let lane = (0...count).first { fits($0, routed: false) } ?? count
                lanes[i] = lane
                let above = inners.indices.filter { lanes[$0] >= 0 && lanes[$0] < lane }.flatMap { marks[$0] }
                let laneFree =
                    inners.indices.filter { lanes[$0] == lane && spans[$0].start < spans[i].start }.map { spans[$0].end + 0.2 }
                    .max() ?? -1
                let step = 2 / max(frameWidth, 1)
                var candidate = inners[i].start - step
                var found = false
                while candidate > laneFree, !found {
                    found = !Self.reaches(above, candidate)
                    candidate -= step
                }
                if !found { routedAll = false }
            }
            count = max(count, lanes[i] + 1)
        }
        return (lanes, count, routedAll)
    }

    /// An inner's marks as absolute frames and how far each reaches either side, in frames of
    /// the style's width (the narrowest a layout uses: the reach is never underestimated).
    func markReach(_ inner: InnerTimelineModel) -> [(frame: Double, reach: Double)] {
        extents(inner.events).map { mark in
            (inner.start + mark.frame, (max(mark.left, mark.right) + 2) / max(frameWidth, 1))
        }
    }

    /// Whether a mark reaches the centre of `frame` (where a connector stands).
    static func reaches(_ marks: [(frame: Double, reach: Double)], _ frame: Double) -> Bool {
        marks.contains { abs($0.frame - frame) < $0.reach }
    }

    /// Spans in order, each in the first lane whose last span ended at least `margin` frames
    /// before it starts; a new lane when none has.
    static func firstFreeLanes(_ spans: [(start: Double, end: Double)], margin: Double) -> (lane: [Int], count: Int) {
        var laneEnds: [Double] = []
        var lanes: [Int] = []
        for span in spans {
            if let free = laneEnds.firstIndex(where: { $0 + margin <= span.start }) {
                laneEnds[free] = span.end
                lanes.append(free)
            } else {
                laneEnds.append(span.end)
                lanes.append(laneEnds.count - 1)
            }
        }
        return (lanes, laneEnds.count)
    }

    /// Frames from an inner's start to the end of its line: its completion or error, else a
    /// frame past its last event (where the arrow points).
    static func drawnLength(_ inner: InnerTimelineModel) -> Double {
        inner.events.first { !$0.isValue }?.frame ?? ((inner.events.map(\.frame).max() ?? 0) + 1)
    }

    /// The frame width at which no two marks of any line touch: the style's, or wider where
    /// labels are wide or marks are close. Lines are the timelines and each lane of inners.
    func fittedFrameWidth(_ model: DiagramModel) -> Double {
        var width = frameWidth
        for line in markLines(model) {
            for (a, b) in zip(line, line.dropFirst()) where b.frame > a.frame {
                width = Swift.max(width, (a.right + b.left + Self.markGap) / (b.frame - a.frame))
            }
        }
        // Events a sliver of a frame apart would need an endless canvas: beyond this they may touch.
        return Swift.min(width, Swift.max(frameWidth, 400))
    }

    /// How far marks reach left of frame 0's cell start and right of `frames`' end, at this
    /// layout's frame width: the room the canvas adds on either side.
    func overhangs(_ model: DiagramModel) -> (left: Double, right: Double) {
        var left = 0.0
        var right = 0.0
        for mark in markLines(model).joined() {
            let center = (mark.frame + 0.5) * frameWidth
            left = Swift.max(left, mark.left - center)
            right = Swift.max(right, center + mark.right - (Swift.max(model.frames, 1) + 2) * frameWidth)
        }
        return (left, right)
    }

    /// The marks of every line (timelines, and each lane of inners, in absolute frames) as
    /// frames with how far their marks reach left and right of the frame's centre.
    func markLines(_ model: DiagramModel) -> [[(frame: Double, left: Double, right: Double)]] {
        var lines: [[TimelineEvent]] = []
        for t in model.inputs + model.outputs {
            lines.append(t.events)
            let (lane, count) = lanes(of: t.inners)
            for l in 0..<count {
                lines.append(
                    t.inners.indices.filter { lane[$0] == l }.flatMap { i in
                        t.inners[i].events.map { TimelineEvent(frame: t.inners[i].start + $0.frame, kind: $0.kind) }
                    })
            }
        }
        return lines.map(extents)
    }

    /// Half the width of a completion bar (2.5 pt stroke) or an error cross (with its round caps).
    func terminalHalfWidth(_ kind: TimelineEvent.Kind) -> Double {
        if case .error = kind { return radius * 0.7 + 1.5 }
        return 1.25
    }

    /// Each frame's marks as how far they reach left and right of the frame's centre.
    func extents(_ events: [TimelineEvent]) -> [(frame: Double, left: Double, right: Double)] {
        return Dictionary(grouping: events, by: \.frame).sorted { $0.key < $1.key }.map { frame, group in
            let widest = group.compactMap { event -> Double? in
                if case .value(let label) = event.kind { return marbleWidth(label) / 2 }
                return nil
            }.max()
            guard let terminal = group.first(where: { !$0.isValue }) else { return (frame, widest ?? 0, widest ?? 0) }
            let half = terminalHalfWidth(terminal.kind)
            guard let widest else { return (frame, half, half) }
            return (frame, widest, widest + Self.terminalGap + half * 2)
        }
    }
}
