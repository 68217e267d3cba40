// Generated from Sources/MarblesTesting/MarblesTesting.docc/AsyncTestsOnVirtualTime.md (the block at line 72) by scripts/code-blocks.py: edit the
// document, then run `make code-blocks`.
// swift-format-ignore-file
import MarblesTesting
import Testing

@Test(.virtualTime(frame: .milliseconds(100))) func marblesBetweenAwaits() async throws {
    let scheduler = try #require(TestScheduler.current)
    let clicks = scheduler.hot("-a-b-|")
    scheduler.expect(clicks.map { $0.uppercased() }).toBe("-A-B-|")
    try await Task.sleep(for: .milliseconds(250))
    #expect(scheduler.now == .milliseconds(250))
}
