import Foundation
import MarbleRender
import TestSupport
import Testing

@Suite("Text through Pango")
struct TextTests {
    @Test("CJK and emoji labels are measured from fonts that have them, and no glyph is missing")
    func cjkAndEmojiHaveGlyphs() {
        let measurer = CairoTextMeasurer()
        for label in ["日本", "🙂", "👍🏽", "한국어", "naïve"] {
            #expect(measurer.unknownGlyphs(in: label) == 0, "\(label)")
            #expect(measurer.width(of: label, size: 14) > 6, "\(label)")
        }
        // Two CJK characters are wider than one.
        #expect(measurer.width(of: "日本", size: 14) > measurer.width(of: "日", size: 14) * 1.8)
    }

    @Test("a character no installed font has is counted")
    func missingGlyphsCounted() {
        #expect(CairoTextMeasurer().unknownGlyphs(in: "\u{13000}") == 1)
        #expect(CairoTextMeasurer().unknownGlyphs(in: "ab") == 0)
    }

    @Test("Pango renders are byte-identical run to run, in every format")
    func pangoIsDeterministic() throws {
        let model = try model("input: -a--b--c|\nvalues: a = \"日本\", b = \"🙂\", c = \"long label\"\noperator: map(x)")
        let list = DiagramLayout(measurer: CairoTextMeasurer()).layout(model)
        for format in OutputFormat.allCases {
            let first = try CairoRenderer().render(list, format: format, theme: .light)
            let second = try CairoRenderer().render(list, format: format, theme: .light)
            #expect(first == second, "\(format)")
        }
    }

    @Test("the toy engine stays available and measures Latin text close to Pango")
    func toyEngine() throws {
        let pango = CairoTextMeasurer(textEngine: .pango).width(of: "map(x * 2)", size: 14)
        let toy = CairoTextMeasurer(textEngine: .toy).width(of: "map(x * 2)", size: 14)
        #expect(abs(pango - toy) < pango * 0.1)
        let list = DiagramLayout(measurer: CairoTextMeasurer(textEngine: .toy)).layout(try model("input: -a|\noperator: map(x)"))
        #expect(try CairoRenderer(textEngine: .toy).render(list, format: .svg, theme: .light).count > 500)
    }
}
