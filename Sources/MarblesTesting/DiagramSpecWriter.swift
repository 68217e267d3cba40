import Foundation
import Testing

/// Writes a diagram spec (`*.marble`, text only: no Cairo here) for each checked
/// expectation, so `marblegen render` can draw users' own operators from their own tests.
/// `TestScheduler()` installs one when the `MARBLES_DIAGRAM_DIR` environment variable names a
/// folder.
public struct DiagramSpecWriter: Sendable {
    /// The folder the specs go to.
    public let directory: String

    /// A writer into `directory` (created when missing).
    public init(directory: String) {
        self.directory = directory
    }

    /// The writer for `MARBLES_DIAGRAM_DIR`, if it is set.
    public static var fromEnvironment: DiagramSpecWriter? {
        guard let directory = ProcessInfo.processInfo.environment["MARBLES_DIAGRAM_DIR"], !directory.isEmpty else { return nil }
        return DiagramSpecWriter(directory: directory)
    }

    /// Writes the spec for `outcome`; returns its path (nil when the folder is not writable:
    /// diagrams are a by-product and never fail a test).
    @discardableResult
    public func write(_ outcome: ExpectationOutcome, testName: String? = nil) -> String? {
        let text = Self.spec(for: outcome, testName: testName)
        let base = Self.fileName(outcome.location, testName: testName) + (outcome.passed ? "" : "-FAILED")
        let path = (directory as NSString).appendingPathComponent(base + ".marble")
        do {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            try text.write(toFile: path, atomically: true, encoding: .utf8)
            return path
        } catch {
            return nil
        }
    }

    /// The spec text: inputs, the expression under test as title, actual and expected.
    public static func spec(for outcome: ExpectationOutcome, testName: String? = nil) -> String {
        let printer = MarblePrinter(frame: outcome.frame)
        let location = outcome.location
        var lines = ["// Written by MarblesTesting for \(testName ?? "a test") at \(location.fileID):\(location.line)."]
        lines.append("title: \(expression(at: location) ?? (testName ?? "expectation"))")
        lines.append("source: \(location.fileID):\(location.line)")
        lines.append("status: \(outcome.passed ? "passed" : "failed")")
        for (index, input) in outcome.inputs.enumerated() {
            // Times before a hot observable's `^` are not drawn.
            let events = input.messages.filter { $0.time >= .zero }
            lines.append("\(input.kind == .hot ? "hot" : "input") e\(index + 1): \(printer.print(events, label: \.description).text)")
        }
        lines.append("actual: \(printer.print(outcome.actual, label: \.description).text)")
        lines.append("expected: \(printer.print(outcome.expected, label: \.description).text)")
        for mismatch in outcome.mismatches { lines.append("// \(mismatch)") }
        return lines.joined(separator: "\n") + "\n"
    }

    /// `MyTests.swift` line 12 of test `mapsValues()` → `MyTests-mapsValues-L12`.
    static func fileName(_ location: Marbles.SourceLocation, testName: String?) -> String {
        let file = (("\(location.fileID)" as NSString).lastPathComponent as NSString).deletingPathExtension
        let test = (testName ?? "").filter { $0.isLetter || $0.isNumber || $0 == "_" }
        return [file, test, "L\(location.line)"].filter { !$0.isEmpty }.joined(separator: "-")
    }

    /// The argument of `expect(...)` on the assertion's source line, read from the file.
    static func expression(at location: Marbles.SourceLocation) -> String? {
        guard let source = try? String(contentsOfFile: "\(location.filePath)", encoding: .utf8) else { return nil }
        let lines = source.split(separator: "\n", omittingEmptySubsequences: false)
        guard location.line >= 1, location.line <= lines.count else { return nil }
        let line = lines[location.line - 1]
        guard let start = line.range(of: "expect(")?.upperBound else { return nil }
        var depth = 0
        var text = ""
        for c in line[start...] {
            if c == "(" || c == "{" || c == "[" { depth += 1 }
            if c == ")" || c == "}" || c == "]" {
                if depth == 0 { break }
                depth -= 1
            }
            if c == "," && depth == 0 { break }
            text.append(c)
        }
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        return trimmed.isEmpty ? nil : trimmed
    }
}
