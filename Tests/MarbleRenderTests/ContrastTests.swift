import Foundation
import MarbleRender
import MarbleSpec
import TestSupport
import Testing

/// WCAG 2 contrast: relative luminances of sRGB colours, (lighter + 0.05) / (darker + 0.05).
func contrast(_ a: RGB, _ b: RGB) -> Double {
    func channel(_ c: Double) -> Double { c <= 0.039_28 ? c / 12.92 : pow((c + 0.055) / 1.055, 2.4) }
    func luminance(_ c: RGB) -> Double { 0.2126 * channel(c.r) + 0.7152 * channel(c.g) + 0.0722 * channel(c.b) }
    let (x, y) = (luminance(a), luminance(b))
    return (max(x, y) + 0.05) / (min(x, y) + 0.05)
}

/// `top` drawn at `opacity` over `bottom`.
func blend(_ top: RGB, over bottom: RGB, opacity: Double) -> RGB {
    RGB(
        r: top.r * opacity + bottom.r * (1 - opacity), g: top.g * opacity + bottom.g * (1 - opacity),
        b: top.b * opacity + bottom.b * (1 - opacity))
}

/// The marks, lines and texts of a display list whose contrast falls under 3:1 in `theme`:
/// lines, bars, crosses and marble outlines against the background (ghosts at their opacity),
/// marble labels (opaque) against their fill as drawn, other text against the background and
/// the operator box.
func lowContrast(_ list: DisplayList, theme: Theme) -> [String] {
    let background = theme.color(.background)
    var problems: [String] = []
    func require(_ ratio: Double, _ what: String) {
        if ratio < 3 { problems.append("\(what): \(String(format: "%.2f", ratio)):1 in \(theme.name)") }
    }
    for item in list.items {
        switch item {
        case .line(_, _, let color, _, let dashed, let opacity):
            require(contrast(blend(theme.color(color), over: background, opacity: opacity), background), dashed ? "dashed line" : "line")
        case .bar(_, _, let color, let opacity), .cross(_, _, let color, let opacity), .arrowHead(_, _, _, let color, let opacity):
            require(contrast(blend(theme.color(color), over: background, opacity: opacity), background), "mark")
        case .marble(_, _, _, let fill, let stroke, let label, _, let opacity):
            require(contrast(blend(theme.color(stroke), over: background, opacity: opacity), background), "outline of '\(label)'")
            let drawnFill = blend(theme.color(fill), over: background, opacity: opacity)
            require(contrast(theme.color(.marbleText), drawnFill), "label '\(label)'")
        case .text(let text, _, _, let color, _, _):
            require(min(contrast(theme.color(color), background), contrast(theme.color(color), theme.color(.boxFill))), "text '\(text)'")
        case .rect: break
        }
    }
    return problems
}

@Suite("Contrast")
struct ContrastTests {
    static let root = repositoryRoot

    static func specs() throws -> [(String, String)] {
        try ["diagrams", "docs/hard-cases"].flatMap { folder in
            try FileManager.default.contentsOfDirectory(atPath: root.appendingPathComponent(folder).path)
                .filter { $0.hasSuffix(".marble") }.sorted()
                .map { name in (name, try String(contentsOf: root.appendingPathComponent(folder + "/" + name), encoding: .utf8)) }
        }
    }

    @Test("every mark, ghost and text of the gallery and the hard cases has at least 3:1 contrast in both themes")
    func galleryContrast() throws {
        var problems: [String] = []
        for (name, text) in try Self.specs() {
            let spec = try DiagramSpec.parse(text, file: name)
            let list = DiagramLayout(style: spec.style, measurer: ApproximateTextMeasurer()).layout(try DiagramRunner.run(spec))
            for theme in [Theme.light, Theme.dark] { problems += lowContrast(list, theme: theme).map { "\(name): \($0)" } }
        }
        #expect(problems.isEmpty, "\(problems.prefix(20).joined(separator: "\n"))")
    }

    @Test("the old ghosts (0.3 and 0.35 opacity) fail the check: it can fail")
    func oldGhostsFail() {
        let old = DisplayList(
            width: 100, height: 100,
            items: [
                .line(from: Point(0, 0), to: Point(10, 0), color: .line, width: 1.5, dashed: true, opacity: 0.35),
                .marble(
                    center: Point(5, 5), width: 20, radius: 10, fill: .marble(1), stroke: .marbleStroke, label: "3", fontSize: 12,
                    opacity: 0.3),
            ])
        #expect(lowContrast(old, theme: .light).count >= 2)
        #expect(lowContrast(old, theme: .dark).count >= 1)
    }
}

@Suite("Gallery and hard-case layouts")
struct GalleryLayoutTests {
    @Test(
        "no mark overlaps another and no connector runs through a mark, in every gallery spec and hard case (five-inners had connectors through a marble and a bar)"
    )
    func noCrossings() throws {
        var problems: [String] = []
        for (name, text) in try ContrastTests.specs() {
            let spec = try DiagramSpec.parse(text, file: name)
            let list = DiagramLayout(style: spec.style, measurer: ApproximateTextMeasurer()).layout(try DiagramRunner.run(spec))
            problems += layoutProblems(list, measurer: ApproximateTextMeasurer()).map { "\(name): \($0)" }
        }
        #expect(problems.isEmpty, "\(problems.prefix(10).joined(separator: "\n"))")
    }
}

extension GalleryLayoutTests {
    @Test("two inners starting at one frame, both with a mark there: the lower one's connector steps aside, crossing nothing")
    func tiedInners() throws {
        let text = """
            input: y--z--z-z--zy-z|
            inner x: a-ca-c-a-|
            inner y: bb---d|
            inner z: ab---a--|
            operator: concatMap
            values: a = "22", b = "x", c = "long label", d = "🙂"
            """
        let list = DiagramLayout(measurer: ApproximateTextMeasurer()).layout(try DiagramRunner.run(try DiagramSpec.parse(text)))
        #expect(layoutProblems(list, measurer: ApproximateTextMeasurer()).isEmpty)
        // A stepped connector: a vertical that stands where no inner starts.
        let verticals = list.items.compactMap { item -> Double? in
            guard case .line(let a, let b, _, _, _, _) = item, a.x == b.x, a.y != b.y else { return nil }
            return a.x
        }
        let marbleXs = Set(
            list.items.compactMap { item -> Double? in
                guard case .marble(let c, _, _, _, _, _, _, _) = item else { return nil }
                return c.x
            })
        #expect(verticals.contains { !marbleXs.contains($0) })
    }
}
