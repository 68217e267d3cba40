import Marbles
import Testing

@Suite("Source locations")
struct SourceLocationTests {
    @Test("a location captured at the call site reads back its file, line and column")
    func capturedLocationReadsBack() {
        let line = #line + 1
        let location = MarbleFailure.Location()
        #expect(location.fileID.hasSuffix("SourceLocationTests.swift"))
        #expect(location.filePath.hasSuffix("Tests/MarblesTests/Comparison/SourceLocationTests.swift"))
        #expect(location.line == line)
        #expect(location.staticFilePath != nil)
        #expect(location.description == "\(location.fileID):\(line):\(location.column)")
    }

    @Test("a captured location equals the same place given as strings, and changes when its file is set")
    func capturedAndStringLocationsCompare() {
        var captured = MarbleFailure.Location(fileID: "Module/File.swift", filePath: "/src/File.swift", line: 3, column: 7)
        let literal: StaticString = "Module/File.swift"
        let path: StaticString = "/src/File.swift"
        let fromLiterals = MarbleFailure.Location(fileID: literal, filePath: path, line: 3, column: 7)
        #expect(fromLiterals == captured)
        captured.fileID = "Other/File.swift"
        #expect(fromLiterals != captured)
        #expect(captured.fileID == "Other/File.swift")
        captured.filePath = "/src/Other.swift"
        #expect(captured.filePath == "/src/Other.swift")
        #expect(captured.description == "Other/File.swift:3:7")
    }

    @Test("a failing expectation is reported at the line of its toBe")
    func failureIsReportedAtTheToBeLine() {
        let reporter = MarbleFailure.Collector()
        let scheduler = TestScheduler(reporter: reporter)
        var line = 0
        scheduler.run {
            line = #line + 1
            scheduler.expect(scheduler.cold("-a-|")).toBe("-b-|")
        }
        #expect(reporter.failures.count == 1)
        #expect(reporter.failures.first?.location.line == line)
        #expect(reporter.failures.first?.location.fileID.hasSuffix("SourceLocationTests.swift") == true)
    }
}
