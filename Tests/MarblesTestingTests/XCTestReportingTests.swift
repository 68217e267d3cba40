import MarblesTesting
import XCTest

@available(macOS 15.0, iOS 18.0, watchOS 11.0, tvOS 18.0, visionOS 2.0, *)
final class XCTestReportingTests: XCTestCase {
    private var captured: [(description: String, file: String, line: Int)] = []
    private var capturing = false

    // corelibs XCTest routes XCTFail through this method; capturing here checks that the
    // reporter takes the XCTest path, with the right location, without failing this test.
    override func recordFailure(withDescription description: String, inFile filePath: String, atLine lineNumber: Int, expected: Bool) {
        if capturing {
            captured.append((description, filePath, lineNumber))
        } else {
            super.recordFailure(withDescription: description, inFile: filePath, atLine: lineNumber, expected: expected)
        }
    }

    func testPassingMarbleTestRecordsNothing() {
        let scheduler = TestScheduler()
        scheduler.run {
            let e1 = scheduler.hot("--a--^--b--c--|", values: ["a": 1, "b": 2, "c": 3])
            scheduler.expect(e1.map { $0 * 10 }).toBe("---b--c--|", values: ["b": 20, "c": 30])
        }
    }

    func testFailingExpectationGoesToXCTFailAtTheCallSite() {
        capturing = true
        let scheduler = TestScheduler()
        let line = #line + 3
        scheduler.run {
            let e1 = scheduler.cold("-a-b-|")
            scheduler.expect(e1).toBe("-a-c-|")
        }
        capturing = false
        XCTAssertEqual(captured.count, 1)
        XCTAssertEqual(captured.first?.line, line)
        XCTAssertTrue(captured.first?.file.hasSuffix("XCTestReportingTests.swift") ?? false)
        XCTAssertTrue(captured.first?.description.contains("frame 3: expected next(c), got next(b)") ?? false)
    }

    func testRecordModeRewritesTheLiteralAndSaysSoThroughXCTFail() throws {
        let fixture = try RecordFixture("scheduler.expect(e1).toBe(\"-a-c-|\")\n")
        capturing = true
        let scheduler = TestScheduler(
            reporter: TestFrameworkReporter(), listener: TestScheduler.Listener(recordDiagram: RecordMode.record))
        scheduler.run {
            scheduler.expect(scheduler.cold("-a-b-|")).toBe("-a-c-|", values: [String: String](), at: fixture.location())
        }
        capturing = false
        XCTAssertEqual(fixture.text, "scheduler.expect(e1).toBe(\"-a-b-|\")\n")
        XCTAssertEqual(captured.count, 1)
        XCTAssertTrue(captured.first?.description.contains("record mode: rewrote") ?? false)
    }

    // Issue 68: a hung body in withVirtualTime was reported only as the error XCTest caught, at
    // `<EXPR>:0`; it is also said at the call.
    func testAHungWithVirtualTimeBodyIsReportedAtTheCallSite() async {
        capturing = true
        let line = #line + 2
        do {
            try await withVirtualTime { _ in await withCheckedContinuation { HungContinuations.keep($0) } }
            XCTFail("withVirtualTime returned for a body that never did")
        } catch {
            XCTAssertTrue(error is VirtualTimeBodyError)
        }
        capturing = false
        XCTAssertEqual(captured.count, 1)
        XCTAssertEqual(captured.first?.line, line)
        XCTAssertTrue(captured.first?.file.hasSuffix("XCTestReportingTests.swift") ?? false)
        XCTAssertTrue(captured.first?.description.contains("the test body was still suspended at frame 0") ?? false)
    }

    func testExploredRaceGoesToXCTFailAtTheExpectationLine() {
        capturing = true
        let line = #line + 11
        exploreSchedules(seed: 3) { s in
            let shown = LastWriter()
            let first = Task { shown.value = "a" }
            let second = Task { shown.value = "b" }
            s.expect(emitting: String.self) { emit in
                await first.value
                await second.value
                emit(shown.value)
            }
            // The last writer depends on which task the runtime runs first.
            .toBe("(x|)", values: ["x": "b"])
        }
        capturing = false
        XCTAssertEqual(captured.count, 1)
        XCTAssertEqual(captured.first?.line, line)
        XCTAssertTrue(captured.first?.description.contains("deviation(s) from FIFO") ?? false, captured.first?.description ?? "")
        XCTAssertTrue(captured.first?.description.contains("MARBLES_SEED=0x3") ?? false, captured.first?.description ?? "")
    }

    func testComparisonValuesDescribeTheMismatch() throws {
        let parser = MarbleDiagram.Parser()
        let erase = { (events: [Recorded<Event<String>>]) in
            events.map { Recorded(time: $0.time, value: $0.value.map { RecordedValue.plain($0) }) }
        }
        let comparison = MarbleComparison(
            expected: erase(try parser.parse("-a-c-|", kind: .expected)),
            actual: erase(try parser.parse("-a-b-|", kind: .expected)))
        XCTAssertFalse(comparison.matches)
        XCTAssertEqual(comparison.mismatches.map(\.description), ["frame 3: expected next(c), got next(b)"])
    }
}

/// What two racing tasks write.
@available(macOS 15.0, iOS 18.0, watchOS 11.0, tvOS 18.0, visionOS 2.0, *)
private final class LastWriter: @unchecked Sendable {
    var value = ""
}

/// Continuations nothing resumes, kept so that they are not reported as leaked.
enum HungContinuations {
    private static let lock = NSLock()
    nonisolated(unsafe) private static var kept: [CheckedContinuation<Void, Never>] = []
    static func keep(_ continuation: CheckedContinuation<Void, Never>) { lock.withLock { kept.append(continuation) } }
}
