import Foundation
import MarbleSpec
import TestSupport
import Testing

@Suite("Spec errors")
struct SpecErrorTests {

    @Test("each malformed spec is an error at its line and column", arguments: SpecErrorCases.cases)
    func located(_ c: SpecErrorCases.Case) throws {
        guard let error = specError(c.spec) else {
            Issue.record("no error for: \(c.spec)")
            return
        }
        #expect(error.line == c.line, "\(error)")
        #expect(error.column == c.column, "\(error)")
        #expect(error.message.contains(c.message), "\(error)")
    }

    @Test("an inner observable may be named by a digit value, as the input writes it")
    func digitInnerNames() throws {
        let spec = try DiagramSpec.parse("input: -1--2|\ninner 1: -x|\ninner 2: -y|\noperator: flatMap")
        let model = try DiagramRunner.run(spec)
        #expect(model.output.events.map(\.frame) == [2, 5, 6])
    }

    func specError(_ text: String) -> SpecError? {
        let result = Result { () throws(SpecError) -> DiagramModel in
            try DiagramRunner.run(try DiagramSpec.parse(text, file: "bad.marble"))
        }
        if case .failure(let error) = result { return error }
        return nil
    }

    @Test("the message reads like a compiler's: file:line:column, the line, a caret")
    func format() {
        let error = SpecError(
            file: "diagrams/map.marble", line: 2, column: 11, lineText: "operator: mapp(x)", message: "unknown operator 'mapp'")
        #expect(
            error.description == """
                diagrams/map.marble:2:11: error: unknown operator 'mapp'
                    operator: mapp(x)
                              ^
                """)
    }
}
