import Foundation
import MarbleRender
import MarblesTesting
import Testing
import XCTest

// Everything users import beside ours, in one file: an unqualified framework name that one of
// our modules also declared would be ambiguous here and fail to compile.

/// A user's Swift Testing helper that passes its caller's location on.
func expectDoubled(
    _ diagram: String, gives expected: String, sourceLocation: SourceLocation = #_sourceLocation
) {
    let scheduler = TestScheduler()
    scheduler.run {
        let source = scheduler.cold(diagram, values: ["a": 1, "b": 2])
        scheduler.expect(source.map { $0 * 2 }).toBe(expected, values: ["a": 2, "b": 4], sourceLocation: sourceLocation)
    }
}

@Suite("Names beside Testing, XCTest and Foundation")
struct NameClashTests {
    @Test("a helper taking a Swift Testing SourceLocation compiles and passes it through")
    func helperWithSourceLocation() {
        expectDoubled("-a-b|", gives: "-a-b|")
        let location: SourceLocation = #_sourceLocation
        let expression: Expression<Int, Int>? = nil
        let expectation: Testing.Expectation? = nil
        #expect(location.line > 0 && expression == nil && expectation == nil)
    }

    @Test("a failure reported through the helper lands on the caller's line")
    func failureAtCallerLine() {
        let line = #line + 2
        withKnownIssue {
            expectDoubled("-a-b|", gives: "-a--b|")
        } matching: { issue in
            issue.sourceLocation?.line == line
        }
    }
}
