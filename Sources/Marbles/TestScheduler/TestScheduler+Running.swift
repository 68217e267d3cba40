extension TestScheduler {
    /// Runs `body`, then ``flush(fileID:filePath:line:column:)``; returns what `body` returns.
    ///
    /// When the run ends, the subscriptions the harness made (`expect`, `record`) are disposed,
    /// and every test observable must then have been unsubscribed: a subscription that outlives
    /// its subscriber (an operator that forgets to dispose its source, or a `subscribe` in the
    /// test whose disposable is dropped) fails at the `run` line, naming the observable. A
    /// subscription the test expects to stay open (`expect(subscriptions:)` with a diagram that
    /// has no `!`, as `share(resetOnRefCountZero: false)` keeps its source) is not a leak.
    @discardableResult
    public func run<Result>(
        fileID: StaticString = #fileID, filePath: StaticString = #filePath, line: Int = #line, column: Int = #column,
        _ body: () throws -> Result
    ) rethrows -> Result {
        try run(at: MarbleFailure.Location(fileID: fileID, filePath: filePath, line: line, column: column), body)
    }

    @discardableResult
    package func run<Result>(at location: MarbleFailure.Location, _ body: () throws -> Result) rethrows -> Result {
        // Tasks the body starts (`Task { }` in a view model) run on this scheduler's executor, and
        // the clocks the body reads are virtual.
        let result = try runtime.routing(body)
        flush(at: location)
        checkReleased(at: location)
        return result
    }

    /// What ends such a subscription, for the leak report.
    static let leakFixes = """
        To fix it, either:
          - end the input, so that its subscriptions end with it: hot("-a-b-|") (or '#'), or
          - dispose of the subscription at a frame: let s = input.subscribe { … }, then
            scheduler.schedule(after: scheduler.frame * 5) { s.dispose() }; an operator under test
            is disposed at the '!' of expect(…, unsubscribe: "^----!"), or
          - if it should stay open, say so: expect(subscriptions: input.subscriptions).toBe("^")
        """

    /// Disposes the harness's subscriptions, then reports test observables still subscribed.
    func checkReleased(at location: MarbleFailure.Location) {
        let subscriptions = state.harnessSubscriptions
        state.harnessSubscriptions = []
        for subscription in subscriptions { subscription.dispose() }
        var leaks: [String] = []
        for observable in state.testObservables {
            for log in observable.subscriptionLogs where log.unsubscribed == nil {
                let owner = UInt(bitPattern: ObjectIdentifier(observable))
                if state.expectedOpen.contains(OpenSubscription(owner: owner, subscribed: log.subscribed)) { continue }
                leaks.append("\(name(observable.kind, observable.erasedMessages)) subscribed at \(frameText(log.subscribed, frame: frame))")
            }
        }
        guard !leaks.isEmpty else { return }
        let listed = leaks.prefix(5).map { "  \($0)" } + (leaks.count > 5 ? ["  … and \(leaks.count - 5) more"] : [])
        report(
            """
            \(leaks.count) subscription\(leaks.count == 1 ? " is" : "s are") still open after the run, with every \
            expectation unsubscribed: an operator kept its source subscribed, or a subscription made in the test was \
            never disposed
            """ + "\n" + listed.joined(separator: "\n") + "\n" + Self.leakFixes, at: location)
    }

    /// Sets up hot observables created so far, runs virtual time until no work is left (or
    /// `maxFrames`), then checks every expectation whose `toBe` has been called. Frames keep
    /// counting; later expectations count from the time they are made.
    ///
    /// When the step limit is reached, that is the one failure reported: the expectations of
    /// the run are dropped unchecked (their diagrams would only repeat it at length).
    public func flush(fileID: StaticString = #fileID, filePath: StaticString = #filePath, line: Int = #line, column: Int = #column) {
        flush(at: MarbleFailure.Location(fileID: fileID, filePath: filePath, line: line, column: column))
    }

    package func flush(at location: MarbleFailure.Location) {
        setUpHot()
        state.runawayReason = state.pendingRunaway ?? drive(until: maxFrames.map { now + frame * $0 })
        state.pendingRunaway = nil
        if let runaway = runawayReason {
            virtual.cancelAll()
            let dropped = state.checks.count
            state.checks.removeAll()
            report(
                """
                \(runaway) at \(frameText(now, frame: frame)): a source that never ends (an interval, a hot observable \
                without '|', a retry loop, an async sequence that keeps sleeping) needs an unsubscription diagram, \
                e.g. expect(obs, unsubscribe: "^---!"), or set maxFrames\
                \(dropped > 0 ? " (\(dropped) expectation(s) of this run were not checked)" : "")
                """, at: location)
        }
        finishAsync(at: location, cutShort: maxFrames != nil)
        // Usually every check is ready: then the list is taken whole, with no filtered copy.
        let ready: [PendingCheck]
        if state.checks.allSatisfy({ $0.isReady() }) {
            ready = state.checks
            state.checks = []
        } else {
            ready = state.checks.filter { $0.isReady() }
            state.checks.removeAll { $0.isReady() }
        }
        for check in ready { check.check() }
    }

    /// Moves virtual time forward by `duration`, running what is due (hot observables are set
    /// up first).
    public func advance(
        by duration: Duration, fileID: StaticString = #fileID, filePath: StaticString = #filePath, line: Int = #line, column: Int = #column
    ) {
        advance(to: now + duration, fileID: fileID, filePath: filePath, line: line, column: column)
    }

    /// Moves virtual time forward to `time`, running what is due.
    public func advance(
        to time: Duration, fileID: StaticString = #fileID, filePath: StaticString = #filePath, line: Int = #line, column: Int = #column
    ) {
        setUpHot()
        if let runaway = drive(until: max(time, now)) {
            virtual.cancelAll()
            report(
                "\(runaway) before reaching \(frameText(time, frame: frame)): work that never settles",
                at: MarbleFailure.Location(fileID: fileID, filePath: filePath, line: line, column: column))
        }
    }

    func setUpHot() {
        let pending = state.hotToSetUp
        state.hotToSetUp = []
        for setUp in pending { setUp() }
    }

    /// Runs `body` (a subscription made outside a flush) under the step limit, so that a source
    /// looping synchronously as it is subscribed (`generate` whose condition always holds)
    /// stops there and the next flush reports it. Inside a flush the flush's budget applies.
    func underStepLimit<T>(_ body: () -> T) -> T {
        if RunawayGuard.isInstalled { return body() }
        var budget = RunawayGuard.Budget(limit: virtual.stepLimit)
        let result = RunawayGuard.withBudget(&budget) { _ in body() }
        if budget.exhausted, state.pendingRunaway == nil { state.pendingRunaway = budget.loopDescription }
        return result
    }

    /// Runs virtual time and the async runtime's jobs until `limit` (see ``VirtualRuntime/drive(until:)``).
    /// - Returns: why it stopped early, or `nil` when it ran to the end.
    func drive(until limit: Duration?) -> String? { runtime.drive(until: limit) }
}
