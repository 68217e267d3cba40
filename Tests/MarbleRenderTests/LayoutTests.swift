import MarbleRender
import Testing

@Suite("Layout")
struct LayoutTests {
    func marbles(_ list: DisplayList) -> [(center: Point, width: Double, label: String, opacity: Double)] {
        list.items.compactMap {
            if case .marble(let c, let w, _, _, _, let label, _, let opacity) = $0 { return (c, w, label, opacity) }
            return nil
        }
    }

    @Test("marbles sit at their frames on the timeline; completion draws a bar")
    func positions() throws {
        let layout = DiagramLayout()
        let list = layout.layout(try model("input: --a--b|\noperator: map(x)"))
        let ms = marbles(list)
        #expect(ms.count == 4)
        let inputs = ms.prefix(2)
        #expect(inputs[inputs.startIndex + 1].center.x - inputs[inputs.startIndex].center.x == 3 * layout.frameWidth)
        #expect(list.items.contains { if case .bar = $0 { return true } else { return false } })
        #expect(list.items.contains { if case .text("map(x)", _, _, _, _, _) = $0 { return true } else { return false } })
    }

    @Test("a subscriber's line runs from its ^ to its !, named, with no arrow once it left")
    func subscriberLines() throws {
        let layout = DiagramLayout()
        let list = layout.layout(try model("cold source: --1--2--3|\noperator: share\nsubscriber A: -^---!\nsubscriber B: ---^"))
        let names = list.items.compactMap { item -> String? in
            if case .text(let text, _, _, _, _, _) = item { return text }
            return nil
        }
        #expect(names.contains("A") && names.contains("B"))
        let lines = list.items.compactMap { item -> (from: Point, to: Point, width: Double)? in
            if case .line(let from, let to, _, let width, _, _) = item, from.y == to.y, width == 2 { return (from, to, width) }
            return nil
        }
        // Source, A, B top to bottom; A from frame 1 to 5, B from frame 3.
        #expect(lines.count == 3)
        let a = lines[1]
        let b = lines[2]
        #expect(((b.from.x - a.from.x) / layout.frameWidth).rounded() == 2)
        #expect(((a.to.x - a.from.x) / layout.frameWidth).rounded() == 4)
        let arrows = list.items.compactMap { item -> Double? in
            if case .arrowHead(let tip, _, _, _, _) = item { return tip.y }
            return nil
        }
        #expect(!arrows.contains(a.from.y))
    }

    @Test("a short diagram is widened so its operator's label fits inside the box")
    func labelFitsBox() throws {
        let layout = DiagramLayout()
        let list = layout.layout(try model("operator: generate(1, x < 20, x * 2)"))
        let box = list.items.compactMap { item -> (x: Double, width: Double)? in
            if case .rect(let origin, let width, _, .boxFill, _, _) = item { return (origin.x, width) }
            return nil
        }.first
        let label = ApproximateTextMeasurer().width(of: "generate(1, x < 20, x * 2)", size: layout.fontSize * 1.05)
        #expect((box?.width ?? 0) >= label)
        #expect(list.width >= (box.map { $0.x + $0.width } ?? .infinity))
    }

    @Test("long labels widen marbles into capsules")
    func capsules() throws {
        let list = DiagramLayout().layout(try model("input: -a-b|\nvalues: a = \"a long label\"\noperator: map(x)"))
        let ms = marbles(list)
        let long = ms.first { $0.label == "a long label" }!
        let short = ms.first { $0.label == "b" }!
        #expect(long.width > short.width * 2)
        #expect(short.width == 2 * DiagramLayout().radius)
    }

    @Test("same-frame values are stacked, not overlapped")
    func stacking() throws {
        let ms = marbles(DiagramLayout().layout(try model("input: -(ab)-|\noperator: map(x)")))
        let a = ms.first { $0.label == "a" }!
        let b = ms.first { $0.label == "b" }!
        #expect(a.center.x == b.center.x)
        #expect(abs(a.center.y - b.center.y) >= DiagramLayout().radius * 1.8)
    }

    @Test("errors draw a cross")
    func errorCross() throws {
        let list = DiagramLayout().layout(try model("input: -a-#\noperator: map(x)"))
        #expect(list.items.filter { if case .cross = $0 { return true } else { return false } }.count == 2)
    }

    @Test("pause labels state each pause as the spec wrote it, not the part the drawing left out")
    func pauseLabelsAsWritten() throws {
        let texts = { (spec: String) -> [String] in
            DiagramLayout().layout(try model(spec)).items.compactMap { item -> String? in
                if case .text(let text, _, _, _, _, _) = item, text.hasSuffix("s") { return text }
                return nil
            }
        }
        // docs/hard-cases/long-gap.marble: the output's delayed b (frame 6) shortens the idle
        // stretch, yet the pause the input wrote is 1s, and 2.5s.
        #expect(try texts("input: -a-b 1s c--d 2.5s |\noperator: delay(3)") == ["1s", "2.5s"])
        #expect(try texts("input: -x 1s y----|\ninner x: -1 500ms 2|\ninner y: -3-4|\noperator: flatMap").first == "1s")
    }

    @Test("a long idle stretch is drawn short, with break marks on every line and its duration; events stay apart and in order")
    func longGap() throws {
        let m = try model("input: -a 1s b-|\noperator: map(x)")
        let list = DiagramLayout().layout(m)
        #expect(list.width <= 1_200, "\(list.width)")
        let texts = list.items.compactMap { item -> String? in
            if case .text(let text, _, _, _, _, _) = item { return text }
            return nil
        }
        #expect(texts.contains("1s"), "\(texts)")
        let marbles = list.items.compactMap { item -> (String, Double)? in
            if case .marble(let center, _, _, _, _, let label, _, _) = item { return (label, center.x) }
            return nil
        }
        // Input then output: a before b on each, well apart.
        #expect(marbles.map(\.0) == ["a", "b", "a", "b"])
        #expect(marbles[1].1 - marbles[0].1 > 60 && marbles[3].1 - marbles[2].1 > 60)
        // Two slanted strokes a line: input and output.
        let slanted = list.items.filter { item in
            if case .line(let from, let to, _, _, _, _) = item { return from.x != to.x && from.y != to.y }
            return false
        }
        #expect(slanted.count == 4)
        #expect(layoutProblems(list, measurer: ApproximateTextMeasurer()).isEmpty)
    }

    @Test("style: gaps = full draws every frame; a diagram that fits is never squeezed")
    func gapsFull() throws {
        let full = DiagramLayout(style: try DiagramSpec.parse("input: a 1s b|\noperator: map(x)\nstyle: gaps = full").style).layout(
            try model("input: a 1s b|\noperator: map(x)\nstyle: gaps = full"))
        #expect(full.width > 30_000)
        let short = try model("input: a---------b|\noperator: map(x)")
        let list = DiagramLayout().layout(short)
        #expect(!list.items.contains { if case .text("9ms", _, _, _, _, _) = $0 { true } else { false } })
        #expect(list.width == DiagramLayout(style: try DiagramSpec.parse("input: a|\nstyle: gaps = full").style).layout(short).width)
    }

    @Test("inner observables are level timelines joined by a vertical connector; an unsubscribed one is faded after its cut")
    func inners() throws {
        let m = try model(
            """
            input: -x----y----|
            inner x: --1--2--3|
            inner y: --4|
            operator: switchLatest
            """)
        #expect(m.inputs[0].inners.count == 2)
        #expect(m.inputs[0].inners[0].fadedAfter == 5)
        #expect(m.inputs[0].inners[1].fadedAfter == nil)
        let list = DiagramLayout().layout(m)
        let lines = list.items.compactMap { item -> (Point, Point, Bool)? in
            if case .line(let a, let b, _, _, let dashed, _) = item { return (a, b, dashed) }
            return nil
        }
        // Every line is level or vertical: no slant.
        #expect(lines.allSatisfy { $0.0.y == $0.1.y || $0.0.x == $0.1.x })
        #expect(lines.contains { $0.0.x == $0.1.x && $0.0.y != $0.1.y })  // a connector
        #expect(lines.contains { $0.2 })  // the faded part is dashed
        #expect(marbles(list).contains { $0.label == "3" && $0.opacity < 1 })
    }

    @Test("inners that run at the same time get lanes of their own; ones that follow each other share a lane")
    func innerLanes() throws {
        let y = { (list: DisplayList, label: String) in try #require(self.marbles(list).first { $0.label == label }).center.y }
        let overlapping = DiagramLayout().layout(try model("input: -x-y------|\ninner x: ---1|\ninner y: -2|\noperator: flatMap"))
        // y starts while x runs: inners read top to bottom in the order they were subscribed.
        #expect(try y(overlapping, "2") - y(overlapping, "1") > DiagramLayout().radius * 2)
        let sequential = DiagramLayout().layout(try model("input: -x---y----|\ninner x: -1|\ninner y: -2|\noperator: flatMap"))
        #expect(try y(sequential, "1") == y(sequential, "2"))
    }

    @Test("windows an operator emits are drawn as inner timelines of the output, below its marbles")
    func outputInners() throws {
        let m = try model("input: -a-b-c-|\noperator: windowCount(2)")
        #expect(m.output.inners.count == 2)
        let list = DiagramLayout().layout(m)
        let window = try #require(marbles(list).first { $0.label == "A" })
        let firstValueInWindow = try #require(marbles(list).last { $0.label == "a" })
        #expect(firstValueInWindow.center.y - window.center.y >= DiagramLayout().radius * 2)
    }

    @Test("differing frames are highlighted on output and expected")
    func highlights() throws {
        let m = try model("input: --1--2--|\noperator: map(x * 10)\nexpected: --a--b--|\nvalues: a = 10, b = 21")
        #expect(m.output.highlights == [5])
        #expect(m.expected?.highlights == [5])
        #expect(m.mismatches.map(\.description) == ["frame 5: expected next(21), got next(20)"])
        let list = DiagramLayout().layout(m)
        #expect(list.items.filter { if case .rect(_, _, _, .highlight, _, _) = $0 { return true } else { return false } }.count == 2)
    }

    @Test("the diagram is as wide as its longest timeline")
    func size() throws {
        let layout = DiagramLayout()
        let short = layout.layout(try model("input: -a|\noperator: map(x)"))
        let long = layout.layout(try model("input: -a----------|\noperator: map(x)"))
        #expect(long.width - short.width == 10 * layout.frameWidth)
    }
}
