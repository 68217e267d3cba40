import Foundation
import MarbleSpec
import TestSupport
import Testing

@Suite("Spec format")
struct SpecFormatTests {
    @Test("symbol: names the documentation page a diagram belongs to, and changes nothing drawn")
    func symbolLine() throws {
        let plain = try DiagramSpec.parse("title: map\ninput: -1-2|\noperator: map(x * 10)")
        let documented = try DiagramSpec.parse("title: map\nsymbol: ObservableType/map(_:)\ninput: -1-2|\noperator: map(x * 10)")
        #expect(plain.symbol == nil)
        #expect(documented.symbol == "ObservableType/map(_:)")
        #expect(try DiagramRunner.run(plain) == DiagramRunner.run(documented))
    }

    @Test("every gallery spec names its symbol (the DocC gallery puts it on that page)")
    func gallerySpecsHaveSymbols() throws {
        let folder = galleryFolder
        let specs = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasSuffix(".marble") }
        #expect(specs.count > 90)
        for name in specs {
            let text = try String(contentsOf: folder.appendingPathComponent(name), encoding: .utf8)
            let spec = try DiagramSpec.parse(text, file: name)
            #expect(spec.symbol?.contains("/") == true, "\(name) has no symbol: line")
        }
    }
}
