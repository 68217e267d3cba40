import Foundation
import Marbles

/// Writes a diagram spec (`*.marble`, text only: no Cairo) for each checked expectation, so
/// `marblegen render` can draw users' own operators from their own tests. MarblesTesting's
/// `TestScheduler()` installs one when the `MARBLES_DIAGRAM_DIR` environment variable names a
/// folder.
package struct DiagramSpecWriter: Sendable {
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
    public func write(_ outcome: ExpectationOutcome) -> String? {
        let testName = outcome.testName ?? SourceScan.enclosingFunction(at: outcome.location)
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

    /// The spec text: inputs (inner observables as `inner` lines), the expression under test
    /// as title, actual and expected; subscription expectations as the logs they compared.
    public static func spec(for outcome: ExpectationOutcome, testName: String? = nil) -> String {
        let printer = MarbleDiagram.Printer(frame: outcome.frame)
        let location = outcome.location
        let testName = testName ?? outcome.testName
        var lines = ["// Written by MarblesTesting for \(testName ?? "a test") at \(location.fileID):\(location.line)."]
        lines.append("title: \(SourceScan.expectArgument(at: location) ?? (testName ?? "expectation"))")
        lines.append("source: \(location.fileID):\(location.line)")
        lines.append("status: \(outcome.passed ? "passed" : "failed")")
        var names = InnerNames(printer: printer)
        var body: [String] = []
        for (index, input) in outcome.inputs.enumerated() {
            // Times before a hot observable's `^` are not drawn.
            let events = input.messages.filter { $0.time >= .zero }
            body.append("\(input.kind == .hot ? "hot" : "input") e\(index + 1): \(names.print(events))")
        }
        if let expected = outcome.expectedSubscriptions, let actual = outcome.actualSubscriptions {
            body.append(contentsOf: actual.map { "// actual subscription: \(printer.print($0))" })
            body.append(contentsOf: expected.map { "// expected subscription: \(printer.print($0))" })
        } else {
            body.append("actual: \(names.print(outcome.actual))")
            body.append("expected: \(names.print(outcome.expected))")
        }
        lines.append(contentsOf: names.declarations)
        lines.append(contentsOf: body)
        for mismatch in outcome.mismatches { lines.append("// \(mismatch)") }
        return lines.joined(separator: "\n") + "\n"
    }

    /// `MyTests.swift` line 12 of test `mapsValues()` → `MyTests-mapsValues-L12`.
    static func fileName(_ location: MarbleFailure.Location, testName: String?) -> String {
        let file = ((location.fileID as NSString).lastPathComponent as NSString).deletingPathExtension
        let test = (testName ?? "").filter { $0.isLetter || $0.isNumber || $0 == "_" }
        return [file, test, "L\(location.line)"].filter { !$0.isEmpty }.joined(separator: "-")
    }
}

/// Names for the inner observables of a test-written spec: the same timeline gets the same
/// name wherever it appears (input, actual, expected), and each gets an `inner` line.
struct InnerNames {
    let printer: MarbleDiagram.Printer
    private var byDiagram: [String: String] = [:]
    private(set) var declarations: [String] = []
    private static let letters = ["x", "y", "z", "u", "v", "w", "p", "q", "r", "s", "t"]

    init(printer: MarbleDiagram.Printer) { self.printer = printer }

    mutating func print(_ events: [Recorded<Event<RecordedValue>>]) -> String {
        var labels: [String] = []
        for event in events {
            if case .next(let value) = event.value { labels.append(label(value)) }
        }
        var index = 0
        return printer.print(events) { _ in
            defer { index += 1 }
            return labels[index]
        }.text
    }

    private mutating func label(_ value: RecordedValue) -> String {
        let timeline: [Recorded<Event<RecordedValue>>]
        switch value {
        case .inner(let inner): timeline = inner.events
        case .plain(let plain as any TestObservableMessages): timeline = plain.erasedMessages
        case .plain: return value.description
        }
        let diagram = print(timeline)
        if let name = byDiagram[diagram] { return name }
        let name = byDiagram.count < Self.letters.count ? Self.letters[byDiagram.count] : "i\(byDiagram.count + 1)"
        byDiagram[diagram] = name
        declarations.append("inner \(name): \(diagram)")
        return name
    }
}
