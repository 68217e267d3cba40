import Foundation

// `marblegen check` (files on disk current?) and `marblegen verify` (expected outputs hold?).
extension Marblegen {
    /// Re-renders every spec in `directory` in memory and lists the files on disk that are
    /// missing or differ (exit 1).
    package func check(_ directory: String) -> CommandResult {
        var result = CommandResult(exitCode: 0, output: "", errors: "")
        let renderer = CairoRenderer(fontFamily: fontFamily, textEngine: textEngine)
        do { try renderer.verifyFont() } catch {
            result.fail(2, "error: \(error)")
            return result
        }
        let (specs, problems) = collectSpecs([directory])
        for problem in problems { result.fail(2, problem) }
        var stale = 0
        for (spec, outcome) in zip(specs, renderAll(specs, renderer: renderer)) {
            switch outcome {
            case .failure(let message): result.fail(2, message)
            case .success(let files, _):
                for (format, bytes) in files {
                    let path = (spec as NSString).deletingLastPathComponent + "/" + Self.outputName(spec, format)
                    guard let data = FileManager.default.contents(atPath: path) else {
                        result.fail(1, "missing: \(path)")
                        stale += 1
                        continue
                    }
                    if [UInt8](data) != bytes {
                        result.fail(1, "stale: \(path)")
                        stale += 1
                    }
                }
            }
        }
        if result.exitCode == 0 {
            result.say("\(specs.count) spec\(specs.count == 1 ? "" : "s"), every render up to date")
        } else if stale > 0 {
            result.fail(1, "\(stale) render\(stale == 1 ? "" : "s") out of date: run `make diagrams` (marblegen render \(directory))")
        }
        return result
    }

    /// Runs each spec and checks its `expected:` line against the computed output.
    package func verify(_ paths: [String]) -> CommandResult {
        var result = CommandResult(exitCode: 0, output: "", errors: "")
        let (specs, problems) = collectSpecs(paths)
        for problem in problems { result.fail(2, problem) }
        var checked = 0
        for path in specs {
            switch Self.loadSpec(path) {
            case .failure(let failure): result.fail(2, failure.message)
            case .success(let (spec, model)):
                let expectations = (spec.expected == nil ? 0 : 1) + spec.subscriberExpectations.count
                guard expectations > 0 else { continue }
                checked += expectations
                if let message = model.mismatchMessage {
                    result.fail(
                        1,
                        "\(path): the expected output does not hold\n"
                            + message.split(separator: "\n").map { "  " + $0 }.joined(separator: "\n"))
                }
            }
        }
        if result.exitCode == 0 { result.say(checked == 1 ? "1 expectation holds" : "\(checked) expectations hold") }
        return result
    }
}
