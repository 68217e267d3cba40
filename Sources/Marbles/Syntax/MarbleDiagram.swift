/// The marble language: its ``Parser`` (diagram text to timed events), its ``Printer`` (events
/// back to text), the ``SyntaxError`` a malformed diagram raises, its ``Symbol``s and the
/// ``Kind``s of diagram it reads.
///
/// Tests rarely name these: ``TestScheduler`` parses diagrams for `cold`, `hot` and `toBe`.
/// Tools that read or write diagrams themselves (a renderer, a recorder) use them directly:
///
/// ```swift
/// let parser = MarbleDiagram.Parser(frame: .milliseconds(1))
/// let events = try parser.parse("-a-b|", kind: .cold, error: MarbleError()) { $0 }
/// ```
public enum MarbleDiagram {}
