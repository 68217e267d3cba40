import Foundation

/// Reads a test's own source file to name what a diagram shows.
enum SourceScan {
    static func lines(of location: MarbleFailure.Location) -> [Substring]? {
        guard let source = try? String(contentsOfFile: location.filePath, encoding: .utf8) else { return nil }
        let lines = source.split(separator: "\n", omittingEmptySubsequences: false)
        guard location.line >= 1, location.line <= lines.count else { return nil }
        return lines
    }

    /// The argument of `expect(...)` on the assertion's source line.
    static func expectArgument(at location: MarbleFailure.Location) -> String? {
        guard let lines = lines(of: location) else { return nil }
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

    /// The name a declaration on the location's line gives what the call there makes:
    /// `clicks` for `let clicks = scheduler.cold("-a-|")`, the call at `location.column`.
    static func assignedName(at location: MarbleFailure.Location, in lines: [Substring]) -> String? {
        guard location.line >= 1, location.line <= lines.count else { return nil }
        let line = lines[location.line - 1]
        let before = line.prefix(max(location.column - 1, 0))
        guard let equals = before.lastIndex(of: "=") else { return nil }
        // The last `let`/`var` before the `=` that starts a word (`let x = y; let clicks = …`
        // is `clicks`; `outlet ` is no keyword).
        let head = before[..<equals]
        let keyword = ["let ", "var "].compactMap { head.range(of: $0, options: .backwards) }.max { $0.lowerBound < $1.lowerBound }
        guard let keyword else { return nil }
        if keyword.lowerBound > head.startIndex {
            let previous = head[head.index(before: keyword.lowerBound)]
            if previous.isLetter || previous.isNumber || previous == "_" { return nil }
        }
        let name = head[keyword.upperBound...].prefix { $0.isLetter || $0.isNumber || $0 == "_" }
        return name.isEmpty ? nil : String(name)
    }

    /// The name of the nearest `func` at or above the location (an XCTest method's name, where
    /// the framework does not say which test is running).
    static func enclosingFunction(at location: MarbleFailure.Location) -> String? {
        guard let lines = lines(of: location) else { return nil }
        for line in lines[..<location.line].reversed() {
            guard let range = line.range(of: "func ") else { continue }
            let name = line[range.upperBound...].prefix { $0.isLetter || $0.isNumber || $0 == "_" }
            if !name.isEmpty { return String(name) + "()" }
        }
        return nil
    }
}
