import Foundation
import MarbleDrawing
package import MarbleSpec
import Testing

#if canImport(XCTest) && canImport(Darwin)
    import XCTest
#endif

/// A failing expectation's diagram, attached to the running test: an SVG of the expected and
/// actual timelines as the docs draw them (the frames that differ marked), and the `.marble`
/// spec `marblegen` renders. Under Swift Testing they are `Attachment`s (`swift test
/// --attachments-path DIR` writes them to `DIR`; Xcode shows them in the report); under XCTest
/// on Apple platforms, `XCTAttachment`s. `MARBLES_ATTACHMENTS=0` turns them off.
///
/// Drawn without Cairo (``SVGWriter``, ``DejaVuSansMeasurer``), only when an expectation fails.
package enum FailureAttachments {
    /// Whether failures attach their diagrams: unless `MARBLES_ATTACHMENTS` is `0`, `false` or `no`.
    package static let isOn: Bool = isOn(getenv("MARBLES_ATTACHMENTS").map { String(cString: $0) })

    static func isOn(_ value: String?) -> Bool {
        guard let value = value?.lowercased() else { return true }
        return !["0", "false", "no", "off"].contains(value)
    }

    /// What to attach for `outcome`: file names and contents, the SVG first. `role` names what
    /// failed when it was not the test's own run (`smallest-failing-example`).
    package static func files(for outcome: ExpectationOutcome, role: String? = nil) -> [(name: String, contents: String)] {
        let testName = outcome.testName ?? SourceScan.enclosingFunction(at: outcome.location)
        let spec = DiagramSpecWriter.spec(for: outcome, testName: testName)
        let base = DiagramSpecWriter.fileName(outcome.location, testName: testName) + (role.map { "-" + $0 } ?? "")
        var files = [(name: base + ".marble", contents: spec)]
        // A spec the runner refuses (a diagram longer than it draws) still leaves its text.
        if let svg = try? svg(forSpec: spec) { files.insert((base + ".svg", svg), at: 0) }
        return files
    }

    /// The picture of a test-written spec, as `marblegen render` lays it out, following the
    /// reader's light or dark scheme.
    package static func svg(forSpec text: String) throws(SpecError) -> String {
        let spec = try DiagramSpec.parse(text)
        let model = try DiagramRunner.run(spec)
        let list = DiagramLayout(style: spec.style, measurer: DejaVuSansMeasurer()).layout(model)
        return SVGWriter(followsColorScheme: true).svg(list)
    }

    /// Attaches `outcome`'s files to the running test.
    package static func attach(_ outcome: ExpectationOutcome, role: String? = nil) {
        let location = outcome.location
        if Test.current != nil {
            let sourceLocation = SourceLocation(
                fileID: location.fileID, filePath: location.filePath, line: location.line, column: location.column)
            for file in files(for: outcome, role: role) {
                Attachment.record(file.contents, named: file.name, sourceLocation: sourceLocation)
            }
            return
        }
        #if canImport(XCTest) && canImport(Darwin)
            // XCTest keeps its activity context on the thread a synchronous test runs on, the
            // main thread; elsewhere (an async test's executor) `runActivity` raises for want of
            // one, so there the failure keeps its text alone.
            guard Thread.isMainThread else { return }
            if #available(macOS 14.0, iOS 17.0, tvOS 17.0, watchOS 10.0, *) {
                let files = files(for: outcome, role: role)
                MainActor.assumeIsolated { attachToXCTest(files, line: location.line) }
            }
        #endif
    }

    #if canImport(XCTest) && canImport(Darwin)
        @MainActor private static func attachToXCTest(_ files: [(name: String, contents: String)], line: Int) {
            XCTContext.runActivity(named: "Marble diagram of the failure at line \(line)") { activity in
                for file in files {
                    let attachment = XCTAttachment(
                        data: Data(file.contents.utf8),
                        uniformTypeIdentifier: file.name.hasSuffix(".svg") ? "public.svg-image" : "public.plain-text")
                    attachment.name = file.name
                    attachment.lifetime = .keepAlways
                    activity.add(attachment)
                }
            }
        }
    #endif
}

extension TestScheduler {
    /// A scheduler that reports to `reporter` and, for each failing expectation, draws what
    /// would be attached (the SVG and the spec) and passes their total size to `drawn`,
    /// recording nothing: what `make bench` measures a failure's picture with.
    @_spi(Benchmarks) public static func drawingFailures(
        reporter: any MarbleFailure.Reporter, drawn: @escaping (Int) -> Void
    ) -> TestScheduler {
        TestScheduler(
            reporter: reporter,
            listener: TestScheduler.Listener(expectationFailed: { outcome in
                drawn(FailureAttachments.files(for: outcome).reduce(0) { $0 + $1.contents.utf8.count })
            }))
    }
}
