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

    /// The spec text: the test observables under the names the test gives them (inners, the
    /// observables other inputs emit, as `inner` lines drawn from where they were subscribed),
    /// their subscriptions, the expression under test as title, actual and expected; for a
    /// subscription expectation, the expected subscriptions against the actual ones.
    public static func spec(for outcome: ExpectationOutcome, testName: String? = nil) -> String {
        let printer = MarbleDiagram.Printer(frame: outcome.frame)
        let location = outcome.location
        let testName = testName ?? outcome.testName
        var lines = ["// Written by MarblesTesting for \(testName ?? "a test") at \(location.fileID):\(location.line)."]
        lines.append("title: \(SourceScan.expectArgument(at: location) ?? (testName ?? "expectation"))")
        lines.append("source: \(location.fileID):\(location.line)")
        lines.append("status: \(outcome.passed ? "passed" : "failed")")
        let inputNames = InputNames(outcome.inputs)
        var names = InnerNames(printer: printer, inputs: outcome.inputs, inputNames: inputNames.names, keys: outcome.keys)
        var body: [String] = []
        for (index, input) in outcome.inputs.enumerated() where !inputNames.isInner[index] {
            // Times before a hot observable's `^` are not drawn.
            let events = input.messages.filter { $0.time >= .zero }
            let name = inputNames.names[index]
            body.append("\(input.kind == .hot ? "hot" : "input") \(name): \(names.print(events))")
            body.append(contentsOf: input.subscriptions.map { "subscribed \(name): \(printer.print($0))" })
        }
        if let expected = outcome.expectedSubscriptions, let actual = outcome.actualSubscriptions {
            let checked = outcome.inputs.indices.first { outcome.inputs[$0].owner == outcome.subscriptionOwner && !inputNames.isInner[$0] }
            if let checked {
                body.append(contentsOf: expected.map { "expected subscribed \(inputNames.names[checked]): \(printer.print($0))" })
            } else {
                body.append(contentsOf: actual.map { "// actual subscription: \(printer.print($0))" })
                body.append(contentsOf: expected.map { "// expected subscription: \(printer.print($0))" })
            }
        } else {
            body.append("actual: \(names.print(outcome.actual))")
            body.append("expected: \(names.print(outcome.expected))")
        }
        lines.append(contentsOf: names.declarations)
        if let values = names.valuesLine { lines.append(values) }
        lines.append(contentsOf: body)
        for mismatch in outcome.mismatches { lines.append("// " + oneLine("\(mismatch)")) }
        return lines.joined(separator: "\n") + "\n"
    }

    /// `MyTests.swift` line 12 of test `mapsValues()` → `MyTests-mapsValues-L12`.
    static func fileName(_ location: MarbleFailure.Location, testName: String?) -> String {
        let file = ((location.fileID as NSString).lastPathComponent as NSString).deletingPathExtension
        let test = (testName ?? "").filter { $0.isLetter || $0.isNumber || $0 == "_" }
        return [file, test, "L\(location.line)"].filter { !$0.isEmpty }.joined(separator: "-")
    }
}

/// The names of a test's observables in its diagrams: the `name:` the test gave, else the name
/// its source declares (`let clicks = scheduler.cold(…)`), else `e1`, `e2`, … by creation order;
/// each a spec name, each once. Which of them are inners: values another input emits.
struct InputNames {
    let names: [String]
    let isInner: [Bool]

    init(_ inputs: [ExpectationOutcome.Input]) {
        var sources: [String: [Substring]] = [:]
        var taken: Set<String> = []
        var names: [String] = []
        for (index, input) in inputs.enumerated() {
            var name: String?
            if let declaration = input.declaration {
                if let given = declaration.name {
                    name = given
                } else {
                    let path = declaration.location.filePath
                    if sources[path] == nil { sources[path] = SourceScan.lines(of: declaration.location) ?? [] }
                    name = SourceScan.assignedName(at: declaration.location, in: sources[path] ?? [])
                }
            }
            var chosen = name.flatMap(Self.specName) ?? "e\(index + 1)"
            if taken.contains(chosen) {
                let base = chosen
                var n = 2
                while taken.contains("\(base)_\(n)") { n += 1 }
                chosen = "\(base)_\(n)"
            }
            taken.insert(chosen)
            names.append(chosen)
        }
        self.names = names
        // Each input's messages erased once, not once per pair of inputs.
        var emitted: Set<UInt> = []
        for input in inputs {
            for message in input.messages {
                if case .next(let value) = message.value, let owner = ExpectationOutcome.Input.owner(of: value), owner != input.owner {
                    emitted.insert(owner)
                }
            }
        }
        isInner = inputs.map { emitted.contains($0.owner) }
    }

    /// `name` as a spec accepts it (letters, digits and _, not first a digit), else nil.
    static func specName(_ name: String) -> String? {
        let word = name.map { $0.isLetter || $0.isNumber || $0 == "_" ? $0 : "_" }
        guard let first = word.first, !first.isNumber, word.contains(where: { $0 != "_" }) else { return nil }
        return String(word)
    }
}

/// Names for the values of a test-written spec: a value the test's `values:` gives a key is
/// written as that key (with a `values:` line); a test observable keeps its own name (with
/// `subscribed` lines for where the operator subscribed it); any other timeline gets a letter,
/// the same wherever it appears (input, actual, expected); each gets an `inner` line.
struct InnerNames {
    let printer: MarbleDiagram.Printer
    let inputs: [ExpectationOutcome.Input]
    let inputNames: [String]
    let keys: [(key: String, value: RecordedValue)]
    private var byDiagram: [String: String] = [:]
    private var declared: Set<String> = []
    private(set) var declarations: [String] = []
    private var usedKeys: [(key: String, literal: String)] = []
    private static let letters = ["x", "y", "z", "u", "v", "w", "p", "q", "r", "s", "t"]

    init(
        printer: MarbleDiagram.Printer, inputs: [ExpectationOutcome.Input], inputNames: [String],
        keys: [(key: String, value: RecordedValue)] = []
    ) {
        self.printer = printer
        self.inputs = inputs
        self.inputNames = inputNames
        self.keys = keys
    }

    /// `values: t = true, f = false` for the keys written, in the order first written.
    var valuesLine: String? {
        guard !usedKeys.isEmpty else { return nil }
        return "values: " + usedKeys.map { "\(Self.specKey($0.key)) = \($0.literal)" }.joined(separator: ", ")
    }

    /// A key as a `values:` line takes it: bare when it is one plain character, else quoted.
    static func specKey(_ key: String) -> String {
        key.count == 1 && key.allSatisfy { $0.isLetter || $0.isNumber } ? key : "'\(key)'"
    }

    /// A value as a spec literal: numbers and booleans as such, anything else as its text (one line).
    static func literal(_ value: Any) -> String {
        switch value {
        case let bool as Bool: return bool ? "true" : "false"
        case let int as any BinaryInteger: return "\(int)"
        case let double as Double where double.isFinite: return "\(double)"
        default:
            let text = oneLine(value as? String ?? String(describing: value))
            return "\"" + text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"") + "\""
        }
    }

    /// The test's key for a plain value (not a matcher: it has no literal), remembered for `values:`.
    private mutating func key(for value: RecordedValue) -> String? {
        guard case .plain(let plain) = value, !(plain is ValueMatcher), !(plain is any TestObservableMessages),
            let key = MarbleComparison.key(for: value, in: keys)
        else { return nil }
        if !usedKeys.contains(where: { $0.key == key }) { usedKeys.append((key, Self.literal(plain))) }
        return key
    }

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
        if let owner = ExpectationOutcome.Input.owner(of: value), let index = inputs.firstIndex(where: { $0.owner == owner }) {
            let name = inputNames[index]
            if declared.insert(name).inserted {
                let diagram = print(inputs[index].messages)
                declarations.append("inner \(name): \(diagram)")
                declarations += inputs[index].subscriptions.map { "subscribed \(name): \(printer.print($0))" }
            }
            return name
        }
        if let key = key(for: value) { return key }
        let timeline: [Recorded<Event<RecordedValue>>]
        switch value {
        case .inner(let inner): timeline = inner.events
        case .plain(let plain as any TestObservableMessages): timeline = plain.erasedMessages
        case .plain: return oneLine(value.description)
        }
        let diagram = print(timeline)
        if let name = byDiagram[diagram] { return name }
        let free = Self.letters.filter { !inputNames.contains($0) && !declared.contains($0) }
        let name = free.first ?? "i\(byDiagram.count + 1)"
        byDiagram[diagram] = name
        declared.insert(name)
        declarations.append("inner \(name): \(diagram)")
        return name
    }
}

/// `text` with its line breaks as spaces: a spec line ends at a line break.
private func oneLine(_ text: String) -> String { String(text.map { $0.isNewline ? " " : $0 }) }
