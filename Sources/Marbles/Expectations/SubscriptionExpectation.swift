extension TestScheduler {
    /// What subscriptions a test observable should have seen; made by
    /// `TestScheduler.expect(subscriptions:)` (given a test observable or its log).
    public final class SubscriptionExpectation {
        private unowned let scheduler: TestScheduler
        private let origin: Duration
        private let logs: () -> [SubscriptionLog]
        /// The observable whose log this is, when the test passed it (else found by its log).
        private weak var owner: AnyObject?

        init(scheduler: TestScheduler, origin: Duration, owner: AnyObject?, logs: @escaping () -> [SubscriptionLog]) {
            self.scheduler = scheduler
            self.origin = origin
            self.owner = owner
            self.logs = logs
        }

        /// Expects exactly one subscription as drawn (`"^---!"`), or none (`"----"`).
        public func toBe(
            _ diagram: String, fileID: StaticString = #fileID, filePath: StaticString = #filePath, line: Int = #line, column: Int = #column
        ) {
            toBe([diagram], at: MarbleFailure.Location(fileID: fileID, filePath: filePath, line: line, column: column))
        }

        /// Expects these subscriptions, in subscription order; diagrams without `^` stand for none.
        public func toBe(
            _ diagrams: [String], fileID: StaticString = #fileID, filePath: StaticString = #filePath, line: Int = #line,
            column: Int = #column
        ) {
            toBe(diagrams, at: MarbleFailure.Location(fileID: fileID, filePath: filePath, line: line, column: column))
        }

        package func toBe(_ diagrams: [String], at location: MarbleFailure.Location) {
            var expected: [SubscriptionLog] = []
            do {
                for diagram in diagrams {
                    let parsed = try scheduler.parser.parseSubscription(diagram)
                    if let subscribe = parsed.subscribe {
                        expected.append(SubscriptionLog(subscribed: subscribe, unsubscribed: parsed.unsubscribe))
                    }
                }
            } catch {
                scheduler.report(error.description, at: location)
                return
            }
            scheduler.register(at: location, window: LogWindow(logs: logs)) { [self] scheduler in
                let raw = logs()
                let named = owner.map { UInt(bitPattern: ObjectIdentifier($0)) }
                let actual = raw.map {
                    SubscriptionLog(subscribed: $0.subscribed - origin, unsubscribed: $0.unsubscribed.map { $0 - origin })
                }
                let comparison = SubscriptionComparison(expected: expected, actual: actual, frame: scheduler.frame)
                if comparison.matches {
                    // The diagram drew these as open: the test expects them to outlive the run. Given
                    // a log, not the observable, each entry names the observable that logged it.
                    for log in raw where log.unsubscribed == nil {
                        let owner = named ?? log.owner
                        if owner != 0 { scheduler.rare.expectedOpen.insert(OpenSubscription(owner: owner, subscribed: log.subscribed)) }
                    }
                }
                if !comparison.matches {
                    let printer = MarbleDiagram.Printer(frame: scheduler.frame)
                    let candidate = actual.count == 1 ? printer.print(actual[0]) : actual.isEmpty ? "" : nil
                    let written = diagrams.count == 1 ? diagrams[0] : ""
                    scheduler.reportFailure(
                        comparison.message(),
                        proposal: RecordingProposal(
                            recording: DiagramRecording(location: location, written: written, recorded: candidate ?? ""),
                            refusal: candidate == nil ? "\(actual.count) subscriptions need an array of diagrams" : nil),
                        at: location)
                }
                scheduler.announce(passed: comparison.matches) {
                    var outcome = ExpectationOutcome(
                        location: location, testName: scheduler.testName, inputs: scheduler.createdInputs,
                        expectedSubscriptions: expected, actualSubscriptions: actual, frame: scheduler.frame)
                    outcome.subscriptionOwner = named ?? raw.first?.owner
                    return outcome
                }
            }
        }
    }
}

/// A subscription expectation's window: over once every subscription in the log has ended.
private final class LogWindow: CheckWindow {
    let logs: () -> [SubscriptionLog]
    init(logs: @escaping () -> [SubscriptionLog]) { self.logs = logs }
    var windowClosed: Bool {
        let current = logs()
        return !current.isEmpty && current.allSatisfy { $0.unsubscribed != nil }
    }
}
