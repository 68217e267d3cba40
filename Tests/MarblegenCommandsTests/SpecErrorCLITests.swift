import Foundation
import MarblegenCommands
import TestSupport
import Testing

@Suite("Spec errors through the CLI")
struct SpecErrorCLITests {
    @Test(
        "the CLI answers a malformed spec with exit 2 and the located message, writing nothing", arguments: SpecErrorCases.cases.prefix(12))
    func cliExitCode(_ c: SpecErrorCases.Case) {
        let path = writeSpec(c.spec)
        let out = temporaryFolder()
        let result = Marblegen().render([path], outputDirectory: out)
        #expect(result.exitCode == 2)
        #expect(result.errors.contains("\(path):\(c.line):\(c.column): error:"), "\(result.errors)")
        #expect((try? FileManager.default.contentsOfDirectory(atPath: out))?.isEmpty == true)
    }

    @Test("malformed marble strings given to `parse` exit 2 with a caret", arguments: ["--(a", "a)", "-^-^", "'x", "a|b"])
    func parseCommand(_ diagram: String) {
        let result = Marblegen.parse(diagram, kind: diagram.contains("^") ? .hot : .expected)
        #expect(result.exitCode == 2)
        #expect(result.errors.contains("marble syntax error at line 1, column"))
        #expect(result.errors.contains("^"))
    }
}
