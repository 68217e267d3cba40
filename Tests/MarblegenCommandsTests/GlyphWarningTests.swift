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
}
