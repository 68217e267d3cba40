import Foundation

// `marblegen parse` (a marble string's events) and `marblegen operators` (what specs may name).
extension Marblegen {
    /// What kind of diagram `parse` reads.
    package enum ParseKind: String, CaseIterable, Sendable {
        /// Times from the subscription; no `^`.
        case cold
        /// `^` marks frame 0.
        case hot
        /// As hot; nothing after `|` or `#`.
        case expected
        /// `^` and `!` only.
        case subscription
    }

    /// Prints a marble diagram's events as a table, or its syntax error with a caret.
    package static func parse(_ diagram: String, kind: ParseKind = .cold) -> CommandResult {
        var result = CommandResult(exitCode: 0, output: "", errors: "")
        let parser = MarbleDiagram.Parser()
        do {
            let diagramKind: MarbleDiagram.Kind
            switch kind {
            case .subscription:
                let parsed = try parser.parseSubscription(diagram)
                result.say("subscribe    \(parsed.subscribe.map { frameText($0, frame: .milliseconds(1)) } ?? "never")")
                result.say("unsubscribe  \(parsed.unsubscribe.map { frameText($0, frame: .milliseconds(1)) } ?? "never")")
                return result
            case .cold: diagramKind = .cold
            case .hot: diagramKind = .hot
            case .expected: diagramKind = .expected
            }
            let events = try parser.parse(diagram, kind: diagramKind)
            result.say("frame  event")
            for event in events {
                let frame = frameText(event.time, frame: .milliseconds(1)).replacingOccurrences(of: "frame ", with: "")
                result.say(frame.padding(toLength: max(frame.count, 5), withPad: " ", startingAt: 0) + "  " + event.value.description)
            }
        } catch {
            result.fail(2, error.description)
        }
        return result
    }

    /// Lists the operators specs may use, within 80 columns: each usage at the margin, then
    /// what it does and its inputs, indented.
    package static func operators() -> CommandResult {
        var result = CommandResult(exitCode: 0, output: "", errors: "")
        for definition in OperatorRegistry.definitions {
            let inputs =
                definition.inputs.lowerBound == definition.inputs.upperBound
                ? "\(definition.inputs.lowerBound)" : "\(definition.inputs.lowerBound)-\(definition.inputs.upperBound)"
            for line in wrapped(definition.usage, indent: "", after: ", ") { result.say(line) }
            let about = "\(definition.summary) (inputs: \(inputs)\(definition.higherOrder ? ", inner observables" : ""))"
            for line in wrapped(about, indent: "    ", after: " ") { result.say(line) }
        }
        return result
    }

    /// `text` in lines of at most `width` columns, each starting with `indent` (continuations
    /// with two more spaces), broken after `separator`; a piece longer than a line stays whole.
    static func wrapped(_ text: String, indent: String, after separator: String, width: Int = 80) -> [String] {
        var pieces = text.components(separatedBy: separator)
        for index in pieces.indices.dropLast() { pieces[index] += separator }
        var lines: [String] = []
        var line = indent
        for piece in pieces {
            // A piece's trailing space disappears when the line breaks after it.
            let fits = line.count + piece.count <= width + (piece.hasSuffix(" ") ? 1 : 0)
            if line.count > indent.count, !fits {
                lines.append(trimmingTrailingSpaces(line))
                line = indent + "  "
            }
            line += piece
        }
        lines.append(trimmingTrailingSpaces(line))
        return lines
    }

    private static func trimmingTrailingSpaces(_ line: String) -> String {
        String(line.reversed().drop { $0 == " " }.reversed())
    }
}
