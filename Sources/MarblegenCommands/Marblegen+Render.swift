import Foundation

// `marblegen render`: every spec drawn beside itself or into a folder, each file written atomically.
extension Marblegen {
    /// Renders every spec in `paths` (files or folders; the gallery when empty) beside itself, or into `outputDirectory`.
    package func render(_ paths: [String], outputDirectory: String? = nil) -> CommandResult {
        var result = CommandResult(exitCode: 0, output: "", errors: "")
        let renderer = CairoRenderer(fontFamily: fontFamily, textEngine: textEngine)
        do { try renderer.verifyFont() } catch {
            result.fail(2, "error: \(error)")
            return result
        }
        let (specs, problems) = collectSpecs(paths.isEmpty ? [Self.galleryDirectory] : paths)
        for problem in problems { result.fail(2, problem) }
        if let outputDirectory {
            if let problem = Self.createFolder(outputDirectory) {
                result.fail(2, "error: cannot create output folder '\(outputDirectory)': \(problem)")
                return result
            }
        }
        let outcomes = renderAll(specs, renderer: renderer)
        for (spec, outcome) in zip(specs, outcomes) {
            switch outcome {
            case .failure(let message):
                result.fail(2, message)
            case .success(let files, let warnings):
                for warning in warnings { result.warn("\(spec): \(warning)") }
                let directory = outputDirectory ?? (spec as NSString).deletingLastPathComponent
                for (format, bytes) in files {
                    let target = (directory.isEmpty ? "." : directory) + "/" + Self.outputName(spec, format)
                    do {
                        try Self.writeAtomically(bytes, to: target)
                        result.say("wrote \(target)")
                    } catch {
                        result.fail(2, "error: cannot write \(target): \(error)")
                    }
                }
            }
        }
        return result
    }
}
