extension MarbleFailure {
    /// Where in the user's source a marble assertion was written.
    ///
    /// Made from `#fileID`/`#filePath`/`#line`/`#column` by every assertion's default arguments; a
    /// helper passes its caller's location on by forwarding those four parameters.
    public struct Location: Sendable, Equatable, CustomStringConvertible {
        /// A file's name as captured: a compile-time string is turned into a `String` only when
        /// read (every assertion captures a location; few are ever reported).
        @usableFromInline
        enum Text: Sendable {
            case literal(StaticString)
            case string(String)

            @usableFromInline var string: String {
                switch self {
                case .literal(let text): text.description
                case .string(let text): text
                }
            }
        }

        @usableFromInline var fileIDText: Text
        @usableFromInline var filePathText: Text

        /// `Module/File.swift`.
        public var fileID: String {
            get { fileIDText.string }
            set { fileIDText = .string(newValue) }
        }
        /// The full path of the file.
        public var filePath: String {
            get { filePathText.string }
            set { filePathText = .string(newValue) }
        }
        /// 1-based line.
        public var line: Int
        /// 1-based column.
        public var column: Int
        /// The path as a compile-time string, when it was captured as one; XCTest reports need it.
        public var staticFilePath: StaticString?

        /// Captures the caller's location.
        @inlinable
        public init(fileID: StaticString = #fileID, filePath: StaticString = #filePath, line: Int = #line, column: Int = #column) {
            self.fileIDText = .literal(fileID)
            self.filePathText = .literal(filePath)
            self.line = line
            self.column = column
            self.staticFilePath = filePath
        }

        /// A location given as strings (from another framework's location type).
        public init(fileID: String, filePath: String, line: Int, column: Int) {
            self.fileIDText = .string(fileID)
            self.filePathText = .string(filePath)
            self.line = line
            self.column = column
        }

        /// `Module/File.swift:12:5`.
        public var description: String { "\(fileID):\(line):\(column)" }

        /// Same file, line and column.
        public static func == (a: MarbleFailure.Location, b: MarbleFailure.Location) -> Bool {
            a.fileID == b.fileID && a.filePath == b.filePath && a.line == b.line && a.column == b.column
        }
    }
}

/// A failed marble assertion (or a malformed diagram), with the message a person reads and
/// the place it belongs to.
public struct MarbleFailure: Error, Sendable, CustomStringConvertible {
    /// The whole explanation: diagrams, caret, mismatches.
    public var message: String
    /// The assertion's call site.
    public var location: MarbleFailure.Location
    /// Whether it fails the test (``Severity-swift.enum/error``) or is a note the test shows
    /// and passes with (``Severity-swift.enum/warning``: the portability note).
    public var severity: Severity

    /// How serious a ``MarbleFailure`` is.
    public enum Severity: Sendable, Equatable {
        /// Fails the test.
        case error
        /// Shown, without failing the test (a Swift Testing warning; a line on standard error
        /// under XCTest).
        case warning
    }

    /// Creates a failure.
    public init(message: String, location: MarbleFailure.Location, severity: Severity = .error) {
        self.message = message
        self.location = location
        self.severity = severity
    }

    /// `Module/File.swift:12:5: message`.
    public var description: String { "\(location): \(message)" }
}

extension MarbleFailure {
    /// Receives the failures of a ``TestScheduler``. `MarblesTesting` provides the one that
    /// reports to Swift Testing or XCTest.
    public protocol Reporter {
        /// Reports one failure.
        func report(_ failure: MarbleFailure)
    }
}

extension MarbleFailure {
    /// Keeps failures in memory; for checking what a test would report, and for use outside a
    /// test framework.
    public final class Collector: MarbleFailure.Reporter {
        /// The failures reported so far, oldest first (warnings are kept apart, in ``warnings``).
        public private(set) var failures: [MarbleFailure] = []
        /// The warnings reported so far, oldest first.
        public private(set) var warnings: [MarbleFailure] = []
        /// Creates an empty collector.
        public init() {}
        /// Keeps `failure`.
        public func report(_ failure: MarbleFailure) {
            if failure.severity == .warning { warnings.append(failure) } else { failures.append(failure) }
        }
    }
}

extension MarbleFailure {
    /// Under `MARBLES_PORTABLE=1`: adds to each failure that the clocks are real, so that a test
    /// failing only there says why.
    struct PortableModeNote: Reporter {
        let base: any Reporter
        /// The system clocks the code under test read so far, by name (real here).
        var reads: () -> [(clock: String, reads: Int)] = { [] }

        static let note = """
            MARBLES_PORTABLE=1 is on: the system clocks (Date(), ContinuousClock.now, DispatchTime.now()) read \
            real time here, as on Apple platforms, and sleeps are read back from their deadlines. A test that \
            passes without it and fails with it depends on reading those clocks: inject them (see the \
            portability warning the same test gives without MARBLES_PORTABLE).
            """

        /// Which reads can make the difference: those of the code under test, by clock.
        static func readsNote(_ reads: [(clock: String, reads: Int)]) -> String {
            guard !reads.isEmpty else {
                return "The code under test read none of them here: what differs is how its sleeps are read back."
            }
            let listed = reads.map { "\($0.clock) \($0.reads == 1 ? "once" : "\($0.reads) times")" }
            return "The code under test read \(listed.joined(separator: ", ")) here (real; virtual without MARBLES_PORTABLE)."
        }

        func report(_ failure: MarbleFailure) {
            guard failure.severity == .error else { return base.report(failure) }
            var noted = failure
            noted.message += "\n" + Self.note + " " + Self.readsNote(reads())
            base.report(noted)
        }
    }
}
