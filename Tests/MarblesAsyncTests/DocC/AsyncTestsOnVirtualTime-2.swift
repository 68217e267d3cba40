// Generated from Sources/MarblesTesting/MarblesTesting.docc/AsyncTestsOnVirtualTime.md (the block at line 54) by scripts/code-blocks.py: edit the
// document, then run `make code-blocks`.
// swift-format-ignore-file
import MarblesTesting
import Testing

@Test(.virtualTime, .noPortabilityWarning) func runCurrentLetsStartedWorkRun() async {
    let start = ContinuousClock.now
    let started = Task { 1 + 1 }
    await TestScheduler.runCurrent()
    #expect(await started.value == 2)
    #expect(ContinuousClock.now == start)
}
