import Testing

/// What a plain `swift test` leaves out: the tests that need one of the package's traits are
/// compiled only with it. A run without them says so in one line (a warning, not a failure).
@Suite("Package traits")
struct TraitsNoteTests {
    /// The traits this build lacks, each with the tests it adds.
    static var missing: [String] {
        var missing: [String] = []
        #if !OpenCombine && !canImport(Combine)
            missing.append("OpenCombine (MarblesCombineTests, NameClashCombineTests)")
        #endif
        #if !Tools
            missing.append("Tools (the marblegen and marbleplay binary tests, marblegen markdown, the playground server's HTTP tests)")
        #endif
        return missing
    }

    @Test("a run without the package's traits says in one line which tests they add")
    func traitsNote() {
        guard !Self.missing.isEmpty else { return }
        Issue.record(
            "built without the traits \(Self.missing.joined(separator: " and ")): swift test --traits Tools,OpenCombine (make test) runs them too",
            severity: .warning)
    }
}
