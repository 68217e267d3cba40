public import Marbles

/// Checks a property over generated marble diagrams, reporting to the running Swift Testing or
/// XCTest test: `count` cases (`MARBLES_PROPERTY_COUNT` overrides it), each on a fresh
/// `TestScheduler` with diagrams from `draw`. A failing case is shrunk to the smallest
/// diagrams that still fail, and reported at its expectation's line with those diagrams and the
/// seed that reproduces the run (`seed:`, or `MARBLES_SEED`). With `MARBLES_DIAGRAM_DIR` set,
/// the smallest case is also written there as a diagram spec.
///
/// ```swift
/// @Test func flatMapOfOneIsConcatMap() {
///     checkMarbles { s, draw in
///         let source = draw.hot("abc"), inner = draw.cold("xy")
///         s.expect(source.flatMap(maxConcurrent: 1) { _ in inner }).toBeLike(source.concatMap { _ in inner })
///     }
/// }
/// ```
@discardableResult
public func checkMarbles(
    count: Int = 100, seed: UInt64? = nil, minFrames: Int = 2, maxFrames: Int = 24, frame: Duration = .milliseconds(1),
    fileID: StaticString = #fileID, filePath: StaticString = #filePath, line: Int = #line, column: Int = #column,
    _ property: (TestScheduler, MarbleProperty.Generator) -> Void
) -> MarbleProperty.Outcome {
    MarbleProperty.check(
        count: count, seed: seed, minFrames: minFrames, maxFrames: maxFrames, frame: frame, reporter: TestFrameworkReporter(),
        location: MarbleFailure.Location(fileID: fileID, filePath: filePath, line: line, column: column),
        listener: .runningTestDiagrams(role: "smallest-failing-example"),
        property)
}
