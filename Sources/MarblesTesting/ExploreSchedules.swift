public import Marbles

/// Runs a test body under many orders of the work that is ready at the same virtual instant,
/// reporting to the running Swift Testing or XCTest test: `schedules` schedules
/// (`MARBLES_SCHEDULES` overrides it), each on a fresh `TestScheduler` inside `run { }`, the
/// first in FIFO order. A failing schedule is shrunk toward FIFO and reported at its
/// expectation's line with the diagram diff, the deviations from FIFO that make it fail, and the
/// seed that replays it (`seed:`, or `MARBLES_SEED`). With `MARBLES_DIAGRAM_DIR` set, the
/// smallest failing schedule's diagrams are written there.
///
/// ```swift
/// @MainActor @Test func theLatestSearchWins() {
///     exploreSchedules { s in
///         let model = SearchModel(api: SearchAPI(latency: .milliseconds(100)))
///         model.search("sw"); model.search("swift")
///         s.expect(observing: { model.results }).toBe("e-x", values: ["e": [], "x": ["SWIFT"]])
///     }
/// }
/// ```
///
/// `exhaustive: true` runs every distinct order instead (depth first from FIFO), up to
/// `schedules` of them, for small bodies; `strategy` picks how random schedules are drawn.
///
/// What is explored: the order of jobs ready at one instant (tasks, default actors, main-actor
/// work in a `@MainActor` test, continuations the code resumes) and whether sleepers due at one
/// instant wake together. What is not: work due at different instants, and the same-frame order
/// of marble inputs and test publishers.
@discardableResult
public func exploreSchedules(
    _ schedules: Int = 100, exhaustive: Bool = false, strategy: ScheduleExploration.Strategy = .uniform, seed: UInt64? = nil,
    frame: Duration = .milliseconds(1),
    fileID: StaticString = #fileID, filePath: StaticString = #filePath, line: Int = #line, column: Int = #column,
    _ body: (TestScheduler) -> Void
) -> ScheduleExploration.Outcome {
    ScheduleExploration.check(
        schedules: schedules, exhaustive: exhaustive, strategy: strategy, seed: seed, frame: frame, reporter: TestFrameworkReporter(),
        location: MarbleFailure.Location(fileID: fileID, filePath: filePath, line: line, column: column),
        listener: .runningTestDiagrams(role: "smallest-failing-schedule"),
        body)
}
