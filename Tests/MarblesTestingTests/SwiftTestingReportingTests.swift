import MarblesTesting
import Testing

@Suite("Reporting under Swift Testing")
struct SwiftTestingReportingTests {
    @Test("a passing marble test records no issue")
    func passing() {
        let scheduler = TestScheduler()
        scheduler.run {
            let e1 = scheduler.cold("-a-b-|")
            scheduler.expect(e1.map { $0.uppercased() }).toBe("-A-B-|")
        }
    }

    @Test("a failing expectation records an issue at the toBe call site, with the diagram diff")
    func failing() {
        let expectedLine = #line + 5
        withKnownIssue {
            let scheduler = TestScheduler()
            scheduler.run {
                let e1 = scheduler.cold("-a-b-|")
                scheduler.expect(e1).toBe("-a-c-|")
            }
        } matching: { issue in
            issue.sourceLocation?.line == expectedLine
                && issue.sourceLocation?.fileID.hasSuffix("SwiftTestingReportingTests.swift") == true
                && (issue.comments.first?.rawValue.contains("frame 3: expected next(c), got next(b)") ?? false)
        }
    }

    @Test("a malformed diagram records an issue with the caret")
    func malformed() {
        withKnownIssue {
            let scheduler = TestScheduler()
            scheduler.run {
                scheduler.expect(scheduler.cold("-a-b-|")).toBe("-a-(b|")
            }
        } matching: { issue in
            issue.comments.first?.rawValue.contains("unclosed group") ?? false
        }
    }
}
