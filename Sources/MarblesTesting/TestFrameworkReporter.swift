public import Foundation
@_exported public import Marbles
import Testing
import XCTest

/// Reports marble failures to the test that is running: `Issue.record` under Swift Testing,
/// `XCTFail` under XCTest, each at the assertion's source location.
///
/// Our own seam rather than `xctest-dynamic-overlay`, which on Linux can turn Swift Testing
/// failures into passes.
public struct TestFrameworkReporter: MarbleFailure.Reporter {
    /// Creates the reporter.
    public init() {}

    /// Records `failure` in the running Swift Testing test, else fails the running XCTest. A
    /// warning is a warning-severity issue under Swift Testing, a line on standard error under
    /// XCTest (which has no warnings).
    public func report(_ failure: MarbleFailure) {
        let location = failure.location
        if Test.current != nil {
            let sourceLocation = SourceLocation(
                fileID: location.fileID, filePath: location.filePath, line: location.line, column: location.column)
            #if compiler(>=6.3)
                Issue.record(
                    Comment(rawValue: failure.message), severity: failure.severity == .warning ? .warning : .error,
                    sourceLocation: sourceLocation)
            #else
                if failure.severity == .warning {
                    FileHandle.standardError.write(Data("\(location): warning: \(failure.message)\n".utf8))
                } else {
                    Issue.record(Comment(rawValue: failure.message), sourceLocation: sourceLocation)
                }
            #endif
        } else if failure.severity == .warning {
            FileHandle.standardError.write(Data("\(location): warning: \(failure.message)\n".utf8))
        } else if let file = location.staticFilePath {
            XCTFail(failure.message, file: file, line: UInt(location.line))
        } else {
            XCTFail("\(location): \(failure.message)")
        }
    }
}

/// The reporter of a run on virtual time whose body runs on a thread of its own: the driver
/// reports what it finds at the run's end (work still out at the bound, escapes, a deadlock) on
/// that thread, where the test's task-local values are not, so `Issue.record` would find no test
/// and the failure would be lost. Those failures wait here, and ``sayHeld()``, called on the
/// test's own task once the run is over, reports them there (inside `withKnownIssue` too).
final class RunReporter: MarbleFailure.Reporter, @unchecked Sendable {
    private let lock = Lock()
    private var held: [MarbleFailure] = []

    func report(_ failure: MarbleFailure) {
        guard Test.current == nil else { return TestFrameworkReporter().report(failure) }
        lock.withLock { held.append(failure) }
    }

    /// Reports the failures held, on the calling (the test's) task.
    func sayHeld() {
        let taken = lock.withLock { () -> [MarbleFailure] in
            defer { held = [] }
            return held
        }
        for failure in taken { TestFrameworkReporter().report(failure) }
    }
}

extension TestScheduler {
    /// A scheduler whose failures are reported to the running Swift Testing or XCTest test.
    ///
    /// - Parameters:
    ///   - frame: the virtual time of one `-` (1 ms).
    ///   - stepLimit: how many actions one flush may run before it reports work that never
    ///     settles.
    ///   - startDate: what `Date()` reads in the code under test when the scheduler first runs
    ///     (Linux); `nil` is the real date then.
    ///
    /// When `MARBLES_DIAGRAM_DIR` is set, every checked expectation also writes a diagram spec
    /// there (one spec per checked expectation); `marblegen render` draws them. When `MARBLES_RECORD=1`,
    /// failing diagrams are rewritten in the test source (each literal replaced by the actual diagram).
    public convenience init(frame: Duration = .milliseconds(1), stepLimit: Int = 1_000_000, startDate: Date? = nil) {
        self.init(frame: frame, stepLimit: stepLimit, startDate: startDate, reporter: TestFrameworkReporter(), listener: .runningTest)
    }
}

extension TestScheduler.Listener {
    /// The running test's: its name, the `MARBLES_DIAGRAM_DIR` writer, the failure attachments
    /// (unless `MARBLES_ATTACHMENTS=0`) and `MARBLES_RECORD=1` record mode, each when set.
    package static var runningTest: TestScheduler.Listener {
        var listener = TestScheduler.Listener(testName: Test.current?.name)
        if let writer = DiagramSpecWriter.fromEnvironment {
            listener.expectationChecked = { outcome in writer.write(outcome) }
        }
        if FailureAttachments.isOn { listener.expectationFailed = { FailureAttachments.attach($0) } }
        if RecordMode.isOn { listener.recordDiagram = RecordMode.record }
        return listener
    }

    /// The running test's name, its `MARBLES_DIAGRAM_DIR` writer and its failure attachments
    /// (named with `role`), without record mode: for the smallest failing case of runs that
    /// repeat a body (properties, explored schedules), whose failing diagrams are no literal to
    /// rewrite.
    static func runningTestDiagrams(role: String) -> TestScheduler.Listener {
        TestScheduler.Listener(
            testName: Test.current?.name, expectationChecked: runningTest.expectationChecked,
            expectationFailed: FailureAttachments.isOn ? { FailureAttachments.attach($0, role: role) } : nil)
    }
}
