/// A failing `toBe` in record mode: the diagram as written and the diagram that would pass.
///
/// MarblesTesting's record mode (`MARBLES_RECORD=1`) rewrites the string literal at
/// ``location`` from ``written`` to ``recorded``.
package struct DiagramRecording: Sendable, Equatable {
    /// The `toBe` call; its column is the call's opening parenthesis.
    public var location: MarbleFailure.Location
    /// The diagram the test passed to `toBe`.
    public var written: String
    /// The actual timeline as a diagram, with the same `values:` keys.
    public var recorded: String

    /// Creates a recording.
    public init(location: MarbleFailure.Location, written: String, recorded: String) {
        self.location = location
        self.written = written
        self.recorded = recorded
    }
}

extension TestScheduler {
    /// In record mode, the line a failing `toBe` adds to its message: the rewrite, or why not.
    /// `wouldPass` checks the candidate the way the `toBe` checks its own diagram (nil when it
    /// would pass), so only a diagram that passes is ever written.
    func recordingNote(
        written: String, candidate: String, at location: MarbleFailure.Location, wouldPass: (String) -> String?
    ) -> String? {
        guard let recordDiagram else { return nil }
        if let problem = wouldPass(candidate) { return "record mode: not rewritten: \(problem)" }
        return recordDiagram(DiagramRecording(location: location, written: written, recorded: candidate))
    }
}
