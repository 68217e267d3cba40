import Foundation
import MarbleCore

/// Record mode: with `MARBLES_RECORD=1` in the environment, a failing `toBe("…")` whose
/// diagram is a plain string literal is rewritten in the test's source file to the actual
/// diagram, and the failure says so. Nothing else in the file changes.
///
/// ```
/// MARBLES_RECORD=1 swift test --filter MyTests   # rewrites, each test still fails once
/// swift test --filter MyTests                    # passes with the recorded diagrams
/// ```
///
/// A diagram is written only when it would pass. A value no key of the test's `values:` names
/// gets a new key (a free letter), added to the `values:` dictionary literal with the value as a
/// Swift literal (`"z": 20`); a value with no literal (a struct), a `values:` that is not a
/// literal, or a test without `values:` whose values are not the diagram's own characters is
/// refused, and the failure says why. Interpolated, raw and multi-line literals, variables and
/// concatenations are never rewritten.
package enum RecordMode {
    /// Whether `MARBLES_RECORD` is `1`, `true` or `yes`.
    public static var isOn: Bool { isOn(ProcessInfo.processInfo.environment["MARBLES_RECORD"]) }

    /// Whether a `MARBLES_RECORD` value turns record mode on.
    static func isOn(_ value: String?) -> Bool {
        guard let value = value?.lowercased() else { return false }
        return ["1", "true", "yes"].contains(value)
    }

    /// Tests in one process run in parallel and may share a source file.
    private static let fileLock = Lock()

    /// Record mode's answer to a failing `toBe`: its proposal refused (a value with no literal),
    /// checked (the candidate must read back as the recording), then written.
    public static func record(_ proposal: RecordingProposal) -> String {
        if let refusal = proposal.refusal ?? proposal.readBack() { return "record mode: not rewritten: \(refusal)" }
        return rewrite(proposal.recording)
    }

    /// Rewrites the recording's literal in its source file; returns the line for the failure
    /// message (also printed), saying what changed or why nothing did.
    public static func rewrite(_ recording: DiagramRecording) -> String {
        let location = recording.location
        let message = fileLock.withLock { () -> String in
            guard let data = FileManager.default.contents(atPath: location.filePath) else {
                return "record mode: not rewritten: cannot read \(location.filePath)"
            }
            let result = Result { () throws(StringLiteralRewrite.Refusal) -> [UInt8] in
                try StringLiteralRewrite.apply(
                    to: Array(data), line: location.line, column: location.column, written: recording.written,
                    recorded: recording.recorded, newValues: recording.newValues.map { ($0.key, $0.literal) })
            }
            let rewritten: [UInt8]
            switch result {
            case .success(let bytes): rewritten = bytes
            case .failure(let refusal): return "record mode: not rewritten: \(refusal.reason)"
            }
            do {
                try Data(rewritten).write(to: URL(fileURLWithPath: location.filePath), options: .atomic)
            } catch {
                return "record mode: not rewritten: cannot write \(location.filePath): \(error.localizedDescription)"
            }
            let added = recording.newValues.map { "\(StringLiteral.quoted($0.key)): \($0.literal)" }
            return "record mode: rewrote \(location.fileID):\(location.line): \"\(recording.written)\" → \"\(recording.recorded)\""
                + (added.isEmpty ? "" : ", and added \(added.joined(separator: ", ")) to values:")
        }
        print(message)
        return message
    }
}

/// Replaces the string literal that is the first argument of the call whose `(` is at a line
/// and column (as `#column` gives it, in UTF-8 bytes), checking that it is a plain literal that
/// reads as the diagram the test passed.
enum StringLiteralRewrite {
    struct Refusal: Error {
        var reason: String
    }

    static func apply(
        to source: [UInt8], line: Int, column: Int, written: String, recorded: String, newValues: [(key: String, literal: String)] = []
    ) throws(Refusal) -> [UInt8] {
        let open = try offset(of: line, column: column, in: source)
        guard source[open] == UInt8(ascii: "(") else {
            throw Refusal(reason: "no call at line \(line), column \(column) (has the file changed since it was compiled?)")
        }
        var start = open + 1
        while start < source.count, [UInt8(ascii: " "), UInt8(ascii: "\t"), UInt8(ascii: "\n"), UInt8(ascii: "\r")].contains(source[start])
        {
            start += 1
        }
        let (content, end) = try literal(in: source, at: start)
        guard content == written else {
            throw Refusal(reason: "the diagram is not written as one plain string literal (a variable, a concatenation?)")
        }
        let diagram = Array(source[..<start]) + Array(quoted(recorded).utf8)
        guard !newValues.isEmpty else { return diagram + Array(source[end...]) }
        let (replaced, insertion) = try valuesInsertion(in: source, after: end, newValues: newValues)
        return diagram + Array(source[end..<replaced.lowerBound]) + Array(insertion.utf8) + Array(source[replaced.upperBound...])
    }

    /// What the new keys replace in the call's `values: [ … ]` literal that follows `offset`
    /// (the end of the diagram literal): an empty range before its `]`, or the `:` of `[:]`;
    /// and the text that goes there.
    static func valuesInsertion(
        in source: [UInt8], after offset: Int, newValues: [(key: String, literal: String)]
    ) throws(Refusal) -> (Range<Int>, String) {
        let entries = newValues.map { "\(quoted($0.key)): \($0.literal)" }.joined(separator: ", ")
        let notLiteral = Refusal(reason: "new keys \(entries) belong in `values:`, which is not a dictionary literal in the call")
        var index = offset
        while true {
            index = try codeIndex(from: index, in: source)
            guard index < source.count else { break }
            let byte = source[index]
            if opens(byte) {
                index = try closing(of: index, in: source) + 1
                continue
            }
            // The call's own `)`: it has no `values:`.
            if closes(byte) { throw notLiteral }
            if source[index...].starts(with: Array("values".utf8)), index == 0 || !isIdentifierByte(source[index - 1]) {
                var next = index + 6
                while next < source.count, source[next] == UInt8(ascii: " ") { next += 1 }
                guard next < source.count, source[next] == UInt8(ascii: ":") else {
                    index += 1
                    continue
                }
                next += 1
                while next < source.count, [UInt8(ascii: " "), UInt8(ascii: "\n")].contains(source[next]) { next += 1 }
                guard next < source.count, source[next] == UInt8(ascii: "[") else { throw notLiteral }
                return insertion(in: source, dictionary: next...(try closing(of: next, in: source)), entries: entries)
            }
            index += 1
        }
        throw notLiteral
    }

    /// The place before the dictionary's closing `]` (or its `:` when empty) and the entries as
    /// they join what is there.
    private static func insertion(in source: [UInt8], dictionary: ClosedRange<Int>, entries: String) -> (Range<Int>, String) {
        let (open, close) = (dictionary.lowerBound, dictionary.upperBound)
        let inside = String(decoding: source[(open + 1)..<close], as: UTF8.self)
        if inside.trimmingCharacters(in: .whitespacesAndNewlines) == ":" { return ((open + 1)..<close, entries) }
        var last = close - 1
        while last > open, [UInt8(ascii: " "), UInt8(ascii: "\n"), UInt8(ascii: "\t")].contains(source[last]) { last -= 1 }
        let after = last + 1
        return source[last] == UInt8(ascii: ",") ? (after..<after, " \(entries),") : (after..<after, ", \(entries)")
    }

    /// The index of the bracket that closes the one at `open`, string literals skipped.
    private static func closing(of open: Int, in source: [UInt8]) throws(Refusal) -> Int {
        var depth = 0
        var index = open
        while true {
            index = try codeIndex(from: index, in: source)
            guard index < source.count else { break }
            let byte = source[index]
            if opens(byte) { depth += 1 }
            if closes(byte) {
                depth -= 1
                if depth == 0 { return index }
            }
            index += 1
        }
        throw Refusal(reason: "unterminated bracket after the diagram")
    }

    /// The first index at or after `index` outside string literals (`source.count` at the end).
    private static func codeIndex(from index: Int, in source: [UInt8]) throws(Refusal) -> Int {
        var index = index
        while index < source.count, source[index] == UInt8(ascii: "\"") { index = try skipLiteral(in: source, at: index) }
        return index
    }

    private static func opens(_ byte: UInt8) -> Bool { byte == UInt8(ascii: "(") || byte == UInt8(ascii: "[") || byte == UInt8(ascii: "{") }
    private static func closes(_ byte: UInt8) -> Bool {
        byte == UInt8(ascii: ")") || byte == UInt8(ascii: "]") || byte == UInt8(ascii: "}")
    }

    private static func skipLiteral(in source: [UInt8], at start: Int) throws(Refusal) -> Int {
        if source[start...].starts(with: Array("\"\"\"".utf8)) {
            throw Refusal(reason: "a multi-line string literal in `values:` is not rewritten")
        }
        var index = start + 1
        while index < source.count, source[index] != UInt8(ascii: "\"") {
            if source[index] == UInt8(ascii: "\\") { index += 1 }
            index += 1
        }
        return index + 1
    }

    private static func isIdentifierByte(_ byte: UInt8) -> Bool {
        (byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "z")) || (byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z"))
            || (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")) || byte == UInt8(ascii: "_")
    }

    /// The byte offset of a 1-based line and column.
    static func offset(of line: Int, column: Int, in source: [UInt8]) throws(Refusal) -> Int {
        var currentLine = 1
        var index = 0
        while currentLine < line, index < source.count {
            if source[index] == UInt8(ascii: "\n") { currentLine += 1 }
            index += 1
        }
        let offset = index + column - 1
        guard currentLine == line, column >= 1, offset < source.count else {
            throw Refusal(reason: "the file has no line \(line), column \(column) (has it changed since it was compiled?)")
        }
        return offset
    }

    /// The decoded text of the `"…"` literal at `start` and the offset just past it; a refusal
    /// for anything that is not a plain single-line literal followed by `,` or `)`.
    static func literal(in source: [UInt8], at start: Int) throws(Refusal) -> (String, Int) {
        if start < source.count, source[start] == UInt8(ascii: "#") { throw Refusal(reason: "a raw string literal is not rewritten") }
        guard start < source.count, source[start] == UInt8(ascii: "\"") else {
            throw Refusal(reason: "the diagram is not a string literal")
        }
        if source[start...].starts(with: Array("\"\"\"".utf8)) { throw Refusal(reason: "a multi-line string literal is not rewritten") }
        var bytes: [UInt8] = []
        var index = start + 1
        while index < source.count {
            let byte = source[index]
            switch byte {
            case UInt8(ascii: "\""):
                var next = index + 1
                while next < source.count, source[next] == UInt8(ascii: " ") { next += 1 }
                guard next < source.count, source[next] == UInt8(ascii: ",") || source[next] == UInt8(ascii: ")") else {
                    throw Refusal(reason: "the diagram is not written as one plain string literal (a concatenation?)")
                }
                return (String(decoding: bytes, as: UTF8.self), index + 1)
            case UInt8(ascii: "\n"):
                throw Refusal(reason: "unterminated string literal")
            case UInt8(ascii: "\\"):
                guard index + 1 < source.count else { throw Refusal(reason: "unterminated string literal") }
                bytes += try unescape(source[index + 1])
                index += 2
                continue
            default:
                bytes.append(byte)
            }
            index += 1
        }
        throw Refusal(reason: "unterminated string literal")
    }

    static func unescape(_ byte: UInt8) throws(Refusal) -> [UInt8] {
        switch byte {
        case UInt8(ascii: "\\"), UInt8(ascii: "\""), UInt8(ascii: "'"): return [byte]
        case UInt8(ascii: "n"): return [10]
        case UInt8(ascii: "t"): return [9]
        case UInt8(ascii: "r"): return [13]
        case UInt8(ascii: "0"): return [0]
        case UInt8(ascii: "("): throw Refusal(reason: "an interpolated string literal is not rewritten")
        default: throw Refusal(reason: "a string literal with \\\(Character(Unicode.Scalar(byte))) escapes is not rewritten")
        }
    }

    /// `text` as a Swift string literal.
    static func quoted(_ text: String) -> String { StringLiteral.quoted(text) }
}
