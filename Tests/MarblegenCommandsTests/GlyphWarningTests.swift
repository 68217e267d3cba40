import Foundation
import MarblegenCommands
import TestSupport
import Testing

@Suite("Glyph warnings")
struct GlyphWarningTests {
    @Test("render warns about a character no installed font has, without failing")
    func missingGlyphsWarn() throws {
        let hieroglyph = "\u{13000}"
        let path = writeSpec("input: -a|\nvalues: a = \"\(hieroglyph)\"\n")
        var generator = Marblegen()
        generator.formats = [.svg]
        let result = generator.render([path])
        #expect(result.exitCode == 0)
        #expect(result.errors.contains("warning: no installed font has glyphs for some of '\(hieroglyph)'"))
        #expect(FileManager.default.fileExists(atPath: path.replacingOccurrences(of: ".marble", with: ".svg")))
    }

    // Issue 68: render drew a spec whose `expected:` line is wrong with exit code 0 and no word.
    @Test("render says on standard error that a spec's expected output does not hold, and still draws it")
    func wrongExpectationWarns() throws {
        let path = writeSpec("input: -1-2|\noperator: map(x * 10)\nexpected: -a-c|\nvalues: a = 10, c = 30\n")
        var generator = Marblegen()
        generator.formats = [.svg]
        let result = generator.render([path])
        #expect(result.exitCode == 0)
        #expect(result.errors.contains("warning: the expected output does not hold"), "\(result.errors)")
        #expect(FileManager.default.fileExists(atPath: path.replacingOccurrences(of: ".marble", with: ".svg")))
        #expect(generator.verify([path]).exitCode == 1)
    }

    @Test("the picture of a spec whose expected output does not hold says so in its operator box and its description")
    func wrongExpectationShowsInThePicture() throws {
        let path = writeSpec("input: -1-2|\noperator: map(x * 10)\nexpected: -a-c|\nvalues: a = 10, c = 30\n")
        var generator = Marblegen()
        generator.formats = [.svg]
        _ = generator.render([path])
        let svg = try String(contentsOfFile: path.replacingOccurrences(of: ".marble", with: ".svg"), encoding: .utf8)
        #expect(svg.contains("<title>map(x * 10)</title>"))
        #expect(svg.contains("The expected output does not hold at frame 3.</desc>"), "\(svg.prefix(1_200))")
        #expect(svg.contains("stroke:var(--marbles-failure)"), "the operator box is drawn in the failure colour")

        let good = writeSpec("input: -1-2|\noperator: map(x * 10)\nexpected: -a-c|\nvalues: a = 10, c = 20\n")
        _ = generator.render([good])
        let passing = try String(contentsOfFile: good.replacingOccurrences(of: ".marble", with: ".svg"), encoding: .utf8)
        #expect(!passing.contains("does not hold"))
        #expect(!passing.contains("stroke:var(--marbles-failure)"))
    }
}
