import Foundation
import TestSupport
import Testing

@testable import MarbleSpec

@Suite("Spec expressions")
struct SpecExpressionTests {
    /// The first argument of `operator: map(text)`, parsed as a spec would.
    func expression(_ text: String) throws -> SpecExpression {
        let spec = try DiagramSpec.parse("input: -a|\noperator: map(\(text))")
        return try #require(spec.call?.arguments.first?.expression)
    }

    @Test(
        "arithmetic, comparison, logic and string joining evaluate as written",
        arguments: [
            ("x * 10", SpecValue.int(30)), ("(x + 1) * 2", .int(8)), ("x % 2 == 1", .bool(true)),
            ("-x + 1", .int(-2)), ("x / 2", .int(1)), ("x / 2.0", .double(1.5)),
            ("x > 2 && x < 10", .bool(true)), ("x < 2 || !(x == 3)", .bool(false)),
            (#""v" + x"#, .string("v3")), ("1 + 2 * 3", .int(7)), ("10 - 4 - 3", .int(3)),
        ])
    func evaluates(text: String, value: SpecValue) throws {
        #expect(try expression(text).evaluate(["x": .int(3)]) == value)
    }

    @Test("operators bind by precedence and print back with parentheses")
    func printsBack() throws {
        #expect(try expression("1 + 2 * 3").description == "1 + (2 * 3)")
        #expect(try expression("(1 + 2) * 3").description == "(1 + 2) * 3")
    }

    @Test(
        "type errors and unbound names are evaluation errors, not traps",
        arguments: ["x * \"a\"", "!x", "y + 1", "x / 0", "x && true"])
    func evaluationErrors(text: String) throws {
        #expect(throws: EvaluationError.self) { try expression(text).evaluate(["x": .int(3)]) }
    }
}

@Suite("Operator registry")
struct OperatorRegistryTests {
    @Test("every operator has a gallery spec that uses it")
    func galleryCoversRegistry() throws {
        let gallery = galleryFolder
        let specs = try FileManager.default.contentsOfDirectory(atPath: gallery.path).filter { $0.hasSuffix(".marble") }
        var used = Set<String>()
        for name in specs {
            let text = try String(contentsOf: gallery.appendingPathComponent(name), encoding: .utf8)
            if let call = try DiagramSpec.parse(text, file: name).call { used.insert(call.name) }
        }
        let missing = OperatorRegistry.definitions.map(\.name).filter { !used.contains($0) }
        #expect(missing.isEmpty, "no diagram for: \(missing)")
    }

    @Test("names are unique, each with a summary and a usage line naming it")
    func definitionsAreWellFormed() {
        let names = OperatorRegistry.definitions.map(\.name)
        #expect(Set(names).count == names.count)
        for definition in OperatorRegistry.definitions {
            #expect(!definition.summary.isEmpty, "\(definition.name)")
            #expect(definition.usage.hasPrefix(definition.name), "\(definition.usage)")
        }
    }

    @Test("a mistyped operator gets a did-you-mean")
    func suggestion() {
        let result = Result { () throws(SpecError) -> DiagramModel in
            try DiagramRunner.run(try DiagramSpec.parse("input: -a|\noperator: flatMapLatst"))
        }
        guard case .failure(let error) = result else {
            Issue.record("no error")
            return
        }
        #expect(error.message.contains("did you mean 'flatMapLatest'?"), "\(error)")
    }

    @Test(
        "an RxJS name gets the operator that means the same",
        arguments: [
            ("switchMap", "flatMapLatest"), ("mergeMap", "flatMap"), ("exhaustMap", "flatMapFirst"), ("switchAll", "switchLatest"),
        ])
    func rxjsSuggestion(name: String, meant: String) {
        let result = Result { () throws(SpecError) -> DiagramModel in
            try DiagramRunner.run(try DiagramSpec.parse("input: -a|\noperator: \(name)"))
        }
        guard case .failure(let error) = result else {
            Issue.record("no error")
            return
        }
        #expect(error.message.contains("did you mean '\(meant)'?"), "\(error)")
    }

    @Test("every RxJS name maps to an operator the registry has")
    func rxjsNamesExist() {
        for (rxjs, name) in OperatorRegistry.rxjsNames {
            #expect(OperatorRegistry.all[name] != nil, "\(rxjs) → \(name)")
            #expect(OperatorRegistry.all[rxjs] == nil, "\(rxjs) is a registry name itself")
        }
    }
}

@Suite("Edit distance")
struct EditDistanceTests {
    @Test("counts insertions, deletions and substitutions, in characters; the same either way round")
    func countsEdits() {
        #expect(EditDistance.between("", "") == 0)
        #expect(EditDistance.between("map", "") == 3)
        #expect(EditDistance.between("mapp", "map") == 1)
        #expect(EditDistance.between("kitten", "sitting") == 3)
        #expect(EditDistance.between("flatMapLatest", "flatMapLast") == 2)
        #expect(EditDistance.between("日本", "日") == 1)
        for (a, b) in [("render", "rendr"), ("verify", "vreify"), ("abc", "xyz")] {
            #expect(EditDistance.between(a, b) == EditDistance.between(b, a))
        }
    }
}
