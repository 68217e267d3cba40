import MarbleRender
import Testing

/// A mark on the canvas: a marble, a completion bar or an error cross, as a box.
struct MarkBox: CustomStringConvertible {
    var name: String
    var minX: Double, maxX: Double, minY: Double, maxY: Double

    func overlaps(_ other: MarkBox) -> Bool {
        // Half a point of slack: touching strokes are not an overlap.
        minX < other.maxX - 0.5 && other.minX < maxX - 0.5 && minY < other.maxY - 0.5 && other.minY < maxY - 0.5
    }

    var description: String { "\(name) [\(Int(minX))…\(Int(maxX)) × \(Int(minY))…\(Int(maxY))]" }

    static func of(_ item: DrawItem) -> MarkBox? {
        switch item {
        case .marble(let c, let width, let radius, _, _, let label, _, _):
            // The stroke (2 pt) reaches 1 pt past the path.
            return MarkBox(
                name: "marble '\(label)'", minX: c.x - width / 2 - 1, maxX: c.x + width / 2 + 1, minY: c.y - radius - 1,
                maxY: c.y + radius + 1)
        case .bar(let c, let halfHeight, _, _):
            return MarkBox(name: "bar", minX: c.x - 1.25, maxX: c.x + 1.25, minY: c.y - halfHeight, maxY: c.y + halfHeight)
        case .cross(let c, let size, _, _):
            return MarkBox(name: "cross", minX: c.x - size - 1.5, maxX: c.x + size + 1.5, minY: c.y - size - 1.5, maxY: c.y + size + 1.5)
        default:
            return nil
        }
    }
}

/// The problems of a display list: marks that overlap, anything outside the canvas.
func layoutProblems(_ list: DisplayList, measurer: any TextMeasurer) -> [String] {
    var problems: [String] = []
    let marks = list.items.compactMap(MarkBox.of)
    for (i, a) in marks.enumerated() {
        for b in marks[(i + 1)...] where a.overlaps(b) { problems.append("\(a) overlaps \(b)") }
        if a.minX < 0 || a.minY < 0 || a.maxX > list.width || a.maxY > list.height { problems.append("\(a) leaves the canvas") }
    }
    // Connectors (vertical lines from a parent timeline down to an inner's lane) never run through
    // a mark: only their two ends may touch one (the emitting marble, the inner's first value).
    for item in list.items {
        guard case .line(let from, let to, _, _, _, _) = item, from.x == to.x, from.y != to.y else { continue }
        let (top, bottom) = (min(from.y, to.y), max(from.y, to.y))
        for mark in marks where mark.minX < from.x - 0.5 && from.x + 0.5 < mark.maxX {
            let touchesEnd = (mark.minY...mark.maxY).contains(top) || (mark.minY...mark.maxY).contains(bottom)
            if !touchesEnd, mark.minY < bottom - 0.5, top + 0.5 < mark.maxY {
                problems.append("the connector at x \(Int(from.x)) crosses \(mark)")
            }
        }
    }
    for item in list.items {
        guard case .text(let text, let at, let size, _, let anchor, _) = item else { continue }
        let width = measurer.width(of: text, size: size)
        let left = anchor == .center ? at.x - width / 2 : at.x
        if left < 0 || left + width > list.width || at.y > list.height || at.y - size < 0 {
            problems.append("text '\(text)' leaves the canvas")
        }
    }
    return problems
}

/// Random diagram specs: random timelines with short, long, CJK and emoji labels through a
/// random operator (single input, two inputs, or higher-order with inner observables).
struct RandomSpecs {
    var state: UInt64

    mutating func next(_ bound: Int) -> Int {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return Int((z ^ (z >> 31)) % UInt64(bound))
    }

    static let labels = ["1", "22", "x", "long label", "日本", "🙂", "👍🏽", "abcdefghij", "W", "ok!"]

    mutating func timeline(keys: [Character], frames: Int, groups: Bool) -> String {
        var text = ""
        for _ in 0..<frames {
            switch next(10) {
            case 0...4: text += "-"
            case 5 where groups: text += "(\(keys[next(keys.count)])\(keys[next(keys.count)]))"
            default: text.append(keys[next(keys.count)])
            }
        }
        return text + (next(4) == 0 ? "#" : "|")
    }

    mutating func spec() -> String {
        let keys: [Character] = ["a", "b", "c", "d"]
        let values = "values: " + keys.map { "\($0) = \"\(Self.labels[next(Self.labels.count)])\"" }.joined(separator: ", ")
        let frames = 3 + next(20)
        switch next(4) {
        case 0:
            let ops = ["map(x)", "delay(2)", "take(3)", "debounce(2)", "startWith(\"first value\")", "scan(x + y)", "pairwise"]
            return "input: \(timeline(keys: keys, frames: frames, groups: true))\noperator: \(ops[next(ops.count)])\n\(values)"
        case 1:
            let ops = ["merge", "concat", "combineLatest(a + b)", "zip(a + b)", "amb"]
            return """
                input a: \(timeline(keys: keys, frames: frames, groups: false))
                input b: \(timeline(keys: keys, frames: frames, groups: false))
                operator: \(ops[next(ops.count)])
                \(values)
                """
        default:
            let ops = ["flatMap", "flatMapLatest", "flatMapFirst", "concatMap", "flatMap(maxConcurrent: 2)"]
            let outer: [Character] = ["x", "y", "z"]
            var lines = ["input: \(timeline(keys: outer, frames: frames, groups: false))"]
            for key in outer { lines.append("inner \(key): \(timeline(keys: keys, frames: 2 + next(8), groups: false))") }
            lines.append("operator: \(ops[next(ops.count)])")
            lines.append(values)
            return lines.joined(separator: "\n")
        }
    }
}

@Suite("Layout properties")
struct LayoutPropertyTests {
    @Test("random specs lay out with no two marks overlapping, no connector through a mark, nothing outside the canvas")
    func randomSpecsNeverOverlap() throws {
        var random = RandomSpecs(state: 2026)
        let measurer = ApproximateTextMeasurer()
        var checked = 0
        for _ in 0..<1_000 {
            let text = random.spec()
            guard let model = try? DiagramRunner.run(try DiagramSpec.parse(text)) else { continue }
            let list = DiagramLayout(measurer: measurer).layout(model)
            let problems = layoutProblems(list, measurer: measurer)
            #expect(problems.isEmpty, "\(text)\n\(problems.prefix(5).joined(separator: "\n"))")
            if !problems.isEmpty { break }
            checked += 1
        }
        #expect(checked > 800)
    }

    @Test("random specs draw an inner mark solid exactly when the run delivered its event, faded exactly when it did not")
    func innerMarksFollowDelivery() throws {
        var random = RandomSpecs(state: 41)
        var checked = 0
        var undeliveredSeen = 0
        for _ in 0..<1_000 {
            let text = random.spec()
            guard let model = try? DiagramRunner.run(try DiagramSpec.parse(text)) else { continue }
            let timelines = model.inputs + [model.output]
            let inners = timelines.flatMap(\.inners)
            guard !inners.isEmpty else { continue }
            let undelivered = inners.reduce(0) { sum, inner in sum + inner.events.indices.filter { !inner.isDelivered($0) }.count }
            let events = timelines.reduce(0) { $0 + $1.events.count } + inners.reduce(0) { $0 + $1.events.count }
            let marks = DiagramLayout().layout(model).items.compactMap { item -> Double? in
                switch item {
                case .marble(_, _, _, _, _, _, _, let opacity), .bar(_, _, _, let opacity), .cross(_, _, _, let opacity): opacity
                default: nil
                }
            }
            #expect(marks.count == events, "\(text)")
            #expect(marks.filter { $0 < 1 }.count == undelivered, "\(text)")
            undeliveredSeen += undelivered
            checked += 1
        }
        #expect(checked > 300 && undeliveredSeen > 100, "\(checked) specs, \(undeliveredSeen) undelivered events")
    }

    @Test("the check finds an overlap when there is one")
    func checkFindsOverlaps() {
        let list = DisplayList(
            width: 100, height: 100,
            items: [
                .marble(
                    center: Point(30, 50), width: 30, radius: 15, fill: .background, stroke: .line, label: "a", fontSize: 12, opacity: 1),
                .marble(
                    center: Point(50, 50), width: 30, radius: 15, fill: .background, stroke: .line, label: "b", fontSize: 12, opacity: 1),
                .bar(center: Point(99.5, 50), halfHeight: 10, color: .line, opacity: 1),
            ])
        let problems = layoutProblems(list, measurer: ApproximateTextMeasurer())
        #expect(problems.contains { $0.contains("marble 'a'") && $0.contains("marble 'b'") })
        let crossing = DisplayList(
            width: 100, height: 100,
            items: [
                .line(from: Point(50, 0), to: Point(50, 90), color: .line, width: 1.5, dashed: false, opacity: 1),
                .marble(
                    center: Point(50, 50), width: 20, radius: 10, fill: .background, stroke: .line, label: "m", fontSize: 12, opacity: 1),
            ])
        #expect(layoutProblems(crossing, measurer: ApproximateTextMeasurer()).contains { $0.contains("crosses marble 'm'") })
        #expect(problems.contains { $0.contains("bar") && $0.contains("leaves the canvas") })
    }
}
