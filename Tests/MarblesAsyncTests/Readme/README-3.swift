// Generated from README.md (the block at line 113) by scripts/code-blocks.py: edit the
// document, then run `make code-blocks`.
// swift-format-ignore-file
import MarblesTesting
import Testing

@MainActor
@Test(.virtualTime) func showsResultsAfterAPause() async throws {
    let model = SearchModel { query in [query.uppercased()] }
    model.queryChanged("sw")
    try await Task.sleep(for: .milliseconds(100))
    model.queryChanged("swift")
    try await Task.sleep(for: .milliseconds(299))
    #expect(model.results.isEmpty)                  // still waiting for the pause
    try await Task.sleep(for: .milliseconds(1))
    #expect(model.results == ["SWIFT"])             // one search, for the last query
}
