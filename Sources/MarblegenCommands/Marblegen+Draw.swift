internal import Foundation
internal import MarbleSpec

extension Marblegen {
    /// The spec text `draw` renders: the inputs (the first unnamed, the others `in2`, `in3`, …)
    /// and the operator, if any.
    package static func drawSpec(inputs: [String], operator call: String?) -> String {
        var lines = inputs.enumerated().map { index, diagram in index == 0 ? "input: \(diagram)" : "input in\(index + 1): \(diagram)" }
        if let call { lines.append("operator: \(call)") }
        return lines.joined(separator: "\n") + "\n"
    }

    /// Renders one spec given as text (`marblegen draw`) in `format`: the file's bytes, or a
    /// failure with the located error (`source` names the text in messages: `<command line>`,
    /// `<stdin>`).
    package func draw(_ text: String, source: String, format: OutputFormat) -> Result<[UInt8], DrawFailure> {
        let renderer = CairoRenderer(fontFamily: fontFamily, textEngine: textEngine)
        do { try renderer.verifyFont() } catch { return .failure(DrawFailure(message: "error: \(error)")) }
        let spec: DiagramSpec
        let model: DiagramModel
        do {
            spec = try DiagramSpec.parse(text, file: source)
            model = try DiagramRunner.run(spec)
        } catch {
            return .failure(DrawFailure(message: error.description, location: (error.line, error.column)))
        }
        let list = DiagramLayout(style: spec.style, measurer: CairoTextMeasurer(fontFamily: fontFamily, textEngine: textEngine)).layout(
            model)
        let chosen = spec.style.theme.flatMap(Theme.named) ?? (theme == .dark ? .dark : .light)
        let auto = theme == .auto && format == .svg && spec.style.theme == nil
        do {
            return .success(try renderer.render(list, format: format, theme: chosen, scale: scale, autoTheme: auto))
        } catch {
            return .failure(DrawFailure(message: "\(source): error: \(error)"))
        }
    }

    /// Writes `bytes` to `path` atomically (never a half-written file).
    package static func write(_ bytes: [UInt8], to path: String) throws {
        try writeAtomically(bytes, to: path)
    }
}

/// Why `draw` drew nothing: a located spec error, or a rendering or font problem.
package struct DrawFailure: Error, Sendable, CustomStringConvertible {
    /// What went wrong, with the place (`<command line>:2:11: error: …` and a caret).
    package var message: String
    /// The 1-based line of a spec error; `nil` when the spec is not at fault (font, Cairo).
    package var line: Int?
    /// The 1-based column of a spec error.
    package var column: Int?
    package var description: String { message }

    /// Creates a failure, located when `location` is given.
    package init(message: String, location: (line: Int, column: Int)? = nil) {
        self.message = message
        self.line = location?.line
        self.column = location?.column
    }
}
