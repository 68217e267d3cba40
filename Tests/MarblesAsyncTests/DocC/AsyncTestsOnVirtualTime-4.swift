// Generated from Sources/MarblesTesting/MarblesTesting.docc/AsyncTestsOnVirtualTime.md (the block at line 90) by scripts/code-blocks.py: edit the
// document, then run `make code-blocks`.
// swift-format-ignore-file
import MarblesTesting
import Testing

@Test(.noPortabilityWarning) func withVirtualTimeReturnsTheBodysResult() async throws {
    let slept = try await withVirtualTime { _ in
        let start = ContinuousClock.now
        try await Task.sleep(for: .seconds(3))
        return start.duration(to: .now)
    }
    #expect(slept == .seconds(3))
}
