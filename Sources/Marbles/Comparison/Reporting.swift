/// Where in the user's source a marble assertion was written.
///
/// File names are `StaticString`s, as `XCTFail(_:file:line:)` requires.
public struct SourceLocation: Sendable, CustomStringConvertible {
    public var fileID: StaticString
    public var filePath: StaticString
    public var line: Int
    public var column: Int

    /// Captures the caller's location.
    public init(fileID: StaticString = #fileID, filePath: StaticString = #filePath, line: Int = #line, column: Int = #column) {
        self.fileID = fileID
        self.filePath = filePath
        self.line = line
        self.column = column
    }

    public var description: String { "\(fileID):\(line):\(column)" }
}

/// A failed marble assertion (or a malformed diagram), with the message a person reads and
/// the place it belongs to.
public struct MarbleFailure: Error, Sendable, CustomStringConvertible {
    /// The whole explanation: diagrams, caret, mismatches.
    public var message: String
    /// The assertion's call site.
    public var location: SourceLocation

    /// Creates a failure.
    public init(message: String, location: SourceLocation) {
        self.message = message
        self.location = location
    }

    public var description: String { "\(location): \(message)" }
}

/// Receives the failures of a ``TestScheduler``. `MarblesTesting` provides the one that
/// reports to Swift Testing or XCTest.
public protocol MarbleFailureReporter {
    /// Reports one failure.
    func report(_ failure: MarbleFailure)
}

/// Keeps failures in memory; for checking what a test would report, and for use outside a
/// test framework.
public final class CollectingReporter: MarbleFailureReporter {
    /// The failures reported so far, oldest first.
    public private(set) var failures: [MarbleFailure] = []
    /// Creates an empty collector.
    public init() {}
    public func report(_ failure: MarbleFailure) { failures.append(failure) }
}
