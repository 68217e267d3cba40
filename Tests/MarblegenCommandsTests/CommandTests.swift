import Foundation
import MarblegenCommands
import TestSupport
import Testing

@Suite("marblegen commands")
struct CommandTests {
    let spec = """
        title: map
        input: --1--2--|
        operator: map(x * 10)
        expected: --a--b--|
        values: a = 10, b = 20
        """

    @Test("render writes PNG, SVG and PDF atomically; a second render gives the same bytes")
    func renderDeterministic() throws {
        let path = writeSpec(spec)
        var generator = Marblegen()
        generator.formats = [.png, .svg, .pdf]
        let a = temporaryFolder()
        let b = temporaryFolder()
        #expect(generator.render([path], outputDirectory: a).exitCode == 0)
        #expect(generator.render([path], outputDirectory: b).exitCode == 0)
        for ext in ["png", "svg", "pdf"] {
            let x = FileManager.default.contents(atPath: "\(a)/spec.\(ext)")
            let y = FileManager.default.contents(atPath: "\(b)/spec.\(ext)")
            #expect(x != nil && x == y, "\(ext) differs")
        }
        let names = try FileManager.default.contentsOfDirectory(atPath: a)
        #expect(!names.contains { $0.hasSuffix(".tmp") })
        let png = FileManager.default.contents(atPath: "\(a)/spec.png")!
        #expect(png.starts(with: [0x89, 0x50, 0x4E, 0x47]))
        let pdf = String(decoding: FileManager.default.contents(atPath: "\(a)/spec.pdf")!, as: UTF8.self)
        #expect(pdf.hasPrefix("%PDF-"))
    }

    @Test("a diagram of nearly 2,000 frames still renders to PNG, scaled down to Cairo's 32,767-pixel limit")
    func longDiagramFitsPNGLimit() throws {
        let spec = "input: -a-b-c 1900ms |\noperator: bufferCount(1, 1)\nstyle: gaps = full\n"
        let bytes = try Marblegen().draw(spec, source: "<test>", format: .png).get()
        // The IHDR chunk: width and height, big-endian, at bytes 16..<24.
        let width = bytes[16..<20].reduce(0) { $0 << 8 | Int($1) }
        let height = bytes[20..<24].reduce(0) { $0 << 8 | Int($1) }
        #expect(width <= 32_767 && width > 16_000)
        #expect(height > 0 && height < width)
    }

    @Test("a long gap is drawn short: `a 1s b` fits 2,400 px at 2x in PNG and SVG (was 32,766 and 32,200 px)")
    func longGapCompressed() throws {
        let spec = "input: a 1s b|\noperator: map(x)\n"
        let png = try Marblegen().draw(spec, source: "<test>", format: .png).get()
        let width = png[16..<20].reduce(0) { $0 << 8 | Int($1) }
        #expect(width <= 2_400 && width > 200, "\(width)")
        let svg = String(decoding: try Marblegen().draw(spec, source: "<test>", format: .svg).get(), as: UTF8.self)
        let svgWidth = svg.firstMatch(of: /width="([0-9.]+)"/).flatMap { Double($0.1) } ?? .infinity
        #expect(svgWidth <= 1_200, "\(svgWidth)")
        // The description keeps the real frames.
        #expect(svg.contains("b at frame 1001"))
    }

    @Test("the auto theme SVG follows prefers-color-scheme through CSS custom properties")
    func autoTheme() throws {
        let path = writeSpec(spec)
        var generator = Marblegen()
        generator.formats = [.svg]
        let out = temporaryFolder()
        _ = generator.render([path], outputDirectory: out)
        let svg = String(decoding: FileManager.default.contents(atPath: "\(out)/spec.svg")!, as: UTF8.self)
        #expect(svg.contains("@media (prefers-color-scheme: dark)"))
        #expect(svg.contains("fill:var(--marbles-"))
        #expect(!svg.contains("rgb("))
        #expect(svg.contains("id=\"surface1\""))
        #expect(svg.contains("width=\"") && svg.contains("px\""))
    }

    @Test("SVG carries a <title> and a <desc> that tells the events in words, escaped")
    func accessibleSVG() throws {
        let path = writeSpec("title: a < b & \"c\"\ninput: -a-b|\noperator: map(x + x)")
        var generator = Marblegen()
        generator.formats = [.svg]
        let out = temporaryFolder()
        _ = generator.render([path], outputDirectory: out)
        let svg = String(decoding: FileManager.default.contents(atPath: "\(out)/spec.svg")!, as: UTF8.self)
        let lines = svg.split(separator: "\n").map(String.init)
        #expect(lines[2] == "<title>a &lt; b &amp; &quot;c&quot;</title>")
        #expect(
            lines[3]
                == "<desc>source: a at frame 1, b at frame 3, completes at frame 4. Operator: map(x + x). "
                + "output: aa at frame 1, bb at frame 3, completes at frame 4.</desc>")
    }

    @Test("a spec's style theme wins over the command line's theme")
    func styleThemeWins() throws {
        let fixed = writeSpec(spec + "\nstyle: theme = light")
        let plain = writeSpec(spec)
        var dark = Marblegen()
        dark.formats = [.png]
        dark.theme = .dark
        var light = dark
        light.theme = .light
        let a = temporaryFolder()
        let b = temporaryFolder()
        let c = temporaryFolder()
        #expect(dark.render([fixed], outputDirectory: a).exitCode == 0)
        #expect(light.render([plain], outputDirectory: b).exitCode == 0)
        #expect(dark.render([plain], outputDirectory: c).exitCode == 0)
        let styled = FileManager.default.contents(atPath: "\(a)/spec.png")
        #expect(styled == FileManager.default.contents(atPath: "\(b)/spec.png"))
        #expect(styled != FileManager.default.contents(atPath: "\(c)/spec.png"))
    }

    @Test("an unwritable output path exits 2 and leaves no file behind")
    func unwritable() throws {
        let path = writeSpec(spec)
        let blocker = writeSpec("x", name: "not-a-folder")
        let result = Marblegen().render([path], outputDirectory: blocker + "/sub")
        #expect(result.exitCode == 2)
        #expect(result.errors.contains("cannot create output folder"))
        #expect(result.errors.contains("is a file, not a folder"), "\(result.errors)")
    }

    @Test("a folder the file system refuses names the parent and the system's reason")
    func refusedFolder() throws {
        try #require(FileManager.default.fileExists(atPath: "/proc/self"))
        let result = Marblegen().render([writeSpec(spec)], outputDirectory: "/proc/marbles-\(getpid())")
        #expect(result.exitCode == 2)
        #expect(result.errors.contains("'/proc' refused a new folder"), "\(result.errors)")
    }

    @Test("a missing font is a clear error, exit 2")
    func missingFont() {
        var generator = Marblegen()
        generator.fontFamily = "No Such Font Family"
        let result = generator.render([writeSpec(spec)], outputDirectory: temporaryFolder())
        #expect(result.exitCode == 2)
        #expect(result.errors.contains("no usable font"))
        #expect(result.errors.contains("No Such Font Family"))
    }

    @Test("check lists stale and missing renders with exit 1, and passes when current")
    func check() throws {
        let path = writeSpec(spec)
        let folder = (path as NSString).deletingLastPathComponent
        let generator = Marblegen()
        #expect(generator.check(folder).exitCode == 1)
        #expect(generator.check(folder).errors.contains("missing: \(folder)/spec.png"))
        #expect(generator.render([folder]).exitCode == 0)
        #expect(generator.check(folder).exitCode == 0)
        var svg = try String(contentsOfFile: "\(folder)/spec.svg", encoding: .utf8)
        svg += " "
        try svg.write(toFile: "\(folder)/spec.svg", atomically: true, encoding: .utf8)
        let stale = generator.check(folder)
        #expect(stale.exitCode == 1)
        #expect(stale.errors.contains("stale: \(folder)/spec.svg"))
    }

    @Test("verify prints the aligned diff and exits 1 when an expectation does not hold")
    func verify() {
        let wrong = writeSpec(spec.replacingOccurrences(of: "expected: --a--b--|", with: "expected: --a---b-|"))
        let result = Marblegen().verify([wrong])
        #expect(result.exitCode == 1)
        #expect(result.errors.contains("the expected output does not hold"))
        #expect(result.errors.contains("frame 5: expected nothing, got next(20)"))
        let holds = Marblegen().verify([writeSpec(spec)])
        #expect(holds.exitCode == 0)
        // One spec, one expectation: singular (was "1 expectation hold").
        #expect(holds.output == "1 expectation holds\n", "\(holds.output)")
    }

    @Test("missing paths and non-spec files are bad input")
    func badPaths() {
        #expect(Marblegen().verify(["/no/such/path.marble"]).exitCode == 2)
        #expect(Marblegen().verify([writeSpec("x", name: "notes.txt")]).exitCode == 2)
        #expect(Marblegen().render([temporaryFolder()]).errors.contains("no *.marble specs"))
    }

    @Test("parse prints an event table")
    func parse() {
        let result = Marblegen.parse("--a-(bc)-|")
        #expect(result.exitCode == 0)
        #expect(
            result.output == """
                frame  event
                2      next(a)
                4      next(b)
                4      next(c)
                9      completed

                """)
    }

    @Test("operators lists every registry entry with its usage")
    func operators() {
        let result = Marblegen.operators()
        #expect(result.output.contains("map(expression of x)"))
        #expect(result.output.contains("flatMap([maxConcurrent: maxConcurrent])"))
        let lines = result.output.split(separator: "\n")
        #expect(lines.filter { !$0.hasPrefix(" ") }.count >= OperatorRegistry.definitions.count)
        #expect(lines.allSatisfy { $0.count <= 80 }, "\(lines.filter { $0.count > 80 })")
        #expect(result.output.contains("    transforms each value (inputs: 1)"))
    }
}
