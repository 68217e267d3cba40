import Foundation
import MarbleRender
import MarblesTesting
import Testing
import XCTest

// Everything users import beside ours, in one file: an unqualified framework name that one of
// our modules also declared would be ambiguous here and fail to compile.

/// A user's helper that passes its caller's location on, by the same four parameters every
/// assertion takes.
func expectDoubled(
    _ diagram: String, gives expected: String,
    fileID: StaticString = #fileID, filePath: StaticString = #filePath, line: Int = #line, column: Int = #column
) {
    let scheduler = TestScheduler()
    scheduler.run {
        let source = scheduler.cold(diagram, values: ["a": 1, "b": 2])
        scheduler.expect(source.map { $0 * 2 })
            .toBe(expected, values: ["a": 2, "b": 4], fileID: fileID, filePath: filePath, line: line, column: column)
    }
}

@Suite("Names beside Testing, XCTest and Foundation")
struct NameClashTests {
    @Test("a helper forwarding its caller's location compiles beside Testing's SourceLocation")
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
