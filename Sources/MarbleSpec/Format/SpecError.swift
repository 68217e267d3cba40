/// A problem in a diagram spec, located like a compiler error:
///
/// ```
/// diagrams/map.marble:4:12: error: unknown operator 'mapp' (did you mean 'map'?)
///     operator: mapp(x * 10)
///               ^
/// ```
public struct SpecError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The file, as given on the command line (or `<spec>`).
    public var file: String
    /// 1-based line.
    public var line: Int
    /// 1-based column.
    public var column: Int
    /// The text of the line.
    public var lineText: String
    /// What is wrong.
    public var message: String

    /// Creates an error.
    public init(file: String, line: Int, column: Int, lineText: String, message: String) {
        self.file = file
        self.line = line
        self.column = column
        self.lineText = lineText
        self.message = message
    }

    public var description: String {
        let excerpt = CaretExcerpt(line: lineText, column: column)
        return "\(file):\(line):\(column): error: \(message)\n    \(excerpt.text)\n    \(excerpt.caret)"
    }
}

/// An error at a column of the current line, raised while parsing one line's value; the spec
/// parser adds the file and line.
struct LineError: Error {
    var column: Int
    var message: String
}
