@_exported public import Marbles
import Testing
import XCTest

/// Reports marble failures to the test that is running: `Issue.record` under Swift Testing,
/// `XCTFail` under XCTest, each at the assertion's source location.
///
/// Our own seam rather than `xctest-dynamic-overlay`, which on Linux can turn Swift Testing
/// failures into passes.
public struct TestFrameworkReporter: MarbleFailureReporter {
    /// Creates the reporter.
    public init() {}

    public func report(_ failure: MarbleFailure) {
        let location = failure.location
        if Test.current != nil {
            Issue.record(
                Comment(rawValue: failure.message),
                sourceLocation: Testing.SourceLocation(
                    fileID: "\(location.fileID)", filePath: "\(location.filePath)", line: location.line, column: location.column))
        } else {
            XCTFail(failure.message, file: location.filePath, line: UInt(location.line))
        }
    }
}

extension TestScheduler {
    /// A scheduler whose failures are reported to the running Swift Testing or XCTest test.
    ///
    /// - Parameters:
    ///   - frame: the virtual time of one `-` (1 ms).
    ///   - stepLimit: how many actions one flush may run before it reports work that never
    ///     settles.
    ///
    /// When `MARBLES_DIAGRAM_DIR` is set, every checked expectation also writes a diagram spec
    /// there (see ``DiagramSpecWriter``); `marblegen render` draws them.
    public convenience init(frame: Duration = .milliseconds(1), stepLimit: Int = 1_000_000) {
        self.init(frame: frame, stepLimit: stepLimit, reporter: TestFrameworkReporter())
        if let writer = DiagramSpecWriter.fromEnvironment {
            let testName = Test.current?.name
            onExpectationChecked = { outcome in writer.write(outcome, testName: testName) }
        }
    }
}
