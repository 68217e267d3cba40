import Foundation
import MarblegenCommands
import MarblesTesting
import TestSupport
import Testing

@Suite("Diagrams from tests")
struct DiagramsFromTestsTests {
    @Test("a checked expectation writes a spec that marblegen renders, failing frames highlighted")
    func failingExpectationWritesSpec() throws {
        let folder = temporaryFolder()
        let writer = DiagramSpecWriter(directory: folder)
        var written: [String] = []
        let scheduler = TestScheduler(
            reporter: MarbleFailure.Collector(),
            listener: TestScheduler.Listener(
                testName: "mapsValues()", expectationChecked: { outcome in if let path = writer.write(outcome) { written.append(path) } }))
        scheduler.run {
            let e1 = scheduler.hot("--a--^--b--c--|", values: ["a": 1, "b": 2, "c": 3])
            scheduler.expect(e1.map { $0 * 10 }).toBe("---b--c--|", values: ["b": 20, "c": 31])
            scheduler.expect(e1.map { $0 + 1 }).toBe("---x--y--|", values: ["x": 3, "y": 4])
        }
        #expect(written.count == 2)
        let failing = try #require(written.first { $0.hasSuffix("-FAILED.marble") })
        #expect(written.contains { !$0.hasSuffix("-FAILED.marble") })
        let text = try String(contentsOfFile: failing, encoding: .utf8)
        #expect(text.contains("title: e1.map { $0 * 10 }"))
        #expect(text.contains("status: failed"))
        #expect(text.contains("hot e1: ---2--3--|"))
        #expect(text.contains("actual: ---'20'--'30'--|"))
        #expect(text.contains("expected: ---'20'--'31'--|"))

        let model = try DiagramRunner.run(try DiagramSpec.parse(text, file: failing))
        #expect(model.failed)
        #expect(model.operatorLabel == "e1.map { $0 * 10 }")
        #expect(model.output.highlights == [6])
        var generator = Marblegen()
        generator.formats = [.png]
        let result = generator.render([folder])
        #expect(result.exitCode == 0, "\(result.errors)")
        #expect(FileManager.default.fileExists(atPath: failing.replacingOccurrences(of: ".marble", with: ".png")))
    }
}
