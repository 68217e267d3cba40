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
/// A diagram is written only when it would pass: values must be named by the test's `values:`
/// keys (or, without `values:`, be the diagram's own characters); otherwise the failure says
/// which value has no key. Interpolated, raw and multi-line literals, variables and
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
                    recorded: recording.recorded)
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
            return "record mode: rewrote \(location.fileID):\(location.line): \"\(recording.written)\" → \"\(recording.recorded)\""
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

    static func apply(to source: [UInt8], line: Int, column: Int, written: String, recorded: String) throws(Refusal) -> [UInt8] {
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
        return Array(source[..<start]) + Array(quoted(recorded).utf8) + Array(source[end...])
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
    static func quoted(_ text: String) -> String {
        var result = "\""
        for character in text {
            switch character {
            case "\\": result += "\\\\"
            case "\"": result += "\\\""
            case "\n": result += "\\n"
            case "\t": result += "\\t"
            case "\r": result += "\\r"
            default: result.append(character)
            }
        }
        return result + "\""
    }
}
