import MarblesRuntime

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
        state.runsBegun += 1
        // Tasks the body starts (`Task { }` in a view model) run on this scheduler's executor, and
        // the clocks the body reads are virtual; virtual time then runs in the same routing.
        let result = try runtime.routing {
            let result = try body()
            driveFlush(at: location)
            return result
        }
        finishFlush(at: location)
        checkReleased(at: location)
        noteSystemClockReads(at: location)
        return result
    }

    /// `advance` or `flush` before any run, with async code in play (the test made
    /// `scheduler.clock`): the tasks started so far run on the global executor, where virtual
    /// time does not reach them. Says so once, with the fix.
    func reportDrivingOutsideRun(_ call: String, at location: MarbleFailure.Location) {
        guard state.runsBegun == 0, !state.reportedOutsideRun, state.testClock != nil else { return }
        state.reportedOutsideRun = true
        report(Self.outsideRunMessage(call), at: location)
    }

    static func outsideRunMessage(_ call: String) -> String {
        """
        scheduler.\(call) was called outside scheduler.run { }, and this test's async code uses scheduler.clock: \
        tasks started outside a run run on the global executor, where virtual time does not reach them (a sleep \
        on scheduler.clock from there throws CancellationError), so this moved none of them. Start the code \
        under test inside the run and advance there; #expect works between the steps:
            scheduler.run {
                model.search("swift")                      // its Task runs on the scheduler
                scheduler.advance(by: .milliseconds(300))
                #expect(model.results == ["swift"])
            }
        """
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
                if let rare = state.rare, rare.expectedOpen.contains(OpenSubscription(owner: owner, subscribed: log.subscribed)) {
                    continue
                }
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
    /// When the step limit is reached, that is reported first, naming the tasks still sleeping;
    /// then the expectations whose window had closed (ended, or unsubscribed at their `!`) are
    /// checked, and those still open are dropped unchecked (their diagrams would only repeat
    /// the step limit at length).
    public func flush(fileID: StaticString = #fileID, filePath: StaticString = #filePath, line: Int = #line, column: Int = #column) {
        flush(at: MarbleFailure.Location(fileID: fileID, filePath: filePath, line: line, column: column))
    }

    package func flush(at location: MarbleFailure.Location) {
        driveFlush(at: location)
        finishFlush(at: location)
    }

    /// A flush's first half: runs virtual time to the end (or `maxFrames`).
    private func driveFlush(at location: MarbleFailure.Location) {
        reportDrivingOutsideRun("flush()", at: location)
        setUpHot()
        if let rare = state.rare, let pending = rare.pendingRunaway {
            rare.pendingRunaway = nil
            state.runawayReason = pending
        } else {
            state.flushStart = now
            defer { state.flushStart = nil }
            state.runawayReason = drive(until: maxFrames.map { now + frame * $0 })
        }
    }

    /// A flush's second half, outside the routing: reports what was left and checks the
    /// expectations.
    private func finishFlush(at location: MarbleFailure.Location) {
        if let runaway = runawayReason {
            let stoppedAt = now
            // A loop of steps can be watched going round and left expectations whose window had
            // closed before it; a synchronous loop (named already) is cut by ending its
            // subscriber, so no window of its run tells anything.
            let steps = runaway.hasPrefix(Self.stepLimitPrefix)
            let sleepers = steps ? runtime.sleepingTasks(steps: 200) : []
            virtual.cancelAll()
            let closed = steps ? state.checks.filter { $0.windowClosed() } : []
            let open = steps ? state.checks.filter { !$0.windowClosed() } : state.checks
            state.checks.removeAll()
            report(runawayMessage(runaway, at: stoppedAt, sleepers: sleepers, open: open), at: location)
            for check in closed { check.check(self) }
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
        for check in ready { check.check(self) }
    }

    /// How ``VirtualRuntime/drive(until:steps:)`` words the step limit.
    static let stepLimitPrefix = "the test scheduler ran "

    /// The step-limit failure: where it stopped, the tasks still sleeping, the expectations left
    /// unchecked, and what to do.
    func runawayMessage(_ runaway: String, at stoppedAt: Duration, sleepers: [VirtualRuntime.SleepingTask], open: [PendingCheck]) -> String
    {
        var lines = ["\(runaway) at \(frameText(stoppedAt, frame: frame))"]
        if !sleepers.isEmpty {
            lines.append("sleeping when it stopped:")
            for sleeper in sleepers.prefix(5) {
                let who =
                    sleeper.task != nil && sleeper.task == runtime.bodyTask
                    ? "the test body" : sleeper.name.map { "the task \"\($0)\"" } ?? "an unnamed task"
                lines.append("  \(who), until \(frameText(sleeper.deadline, frame: frame))")
            }
            if sleepers.count > 5 { lines.append("  … and \(sleepers.count - 5) more") }
        }
        if !open.isEmpty {
            let lineList = open.prefix(5).map { "line \($0.location.line)" }.joined(separator: ", ")
            lines.append(
                open.count == 1
                    ? "1 expectation whose window was still open was not checked (\(lineList)); those whose window had closed were."
                    : "\(open.count) expectations whose window was still open were not checked (\(lineList)); those whose window had closed were."
            )
        }
        lines.append(
            """
            A source that never ends (an interval, a hot observable without '|', an async sequence that keeps \
            sleeping) stops for an expectation at an unsubscription diagram: expect(obs, unsubscribe: "^---!").
            """)
        let owner =
            !sleepers.isEmpty && open.isEmpty
            ? "Every expectation had ended, so what keeps sleeping belongs to the code under test"
            : "A task the code under test owns goes on after that"
        // A test body on virtual time is the run: its knob is the trait's or withVirtualTime's.
        let stop =
            state.runsBody
            ? "pass maxFrames: N to .virtualTime(…) or withVirtualTime(…) (or set TestScheduler.current?.maxFrames = N in the body)"
            : "set scheduler.maxFrames = N before the run"
        lines.append(
            """
            \(owner): cancel it inside the run (model.stop() or task.cancel(), at a frame with \
            scheduler.schedule(after: …) { model.stop() }). Or stop virtual time on purpose: \(stop) (N: the last \
            frame the test looks at), and the run ends there without a failure.
            """)
        return lines.joined(separator: "\n")
    }

    /// Moves virtual time forward by `duration`, running what is due (hot observables are set
    /// up first).
    public func advance(
        by duration: Duration, fileID: StaticString = #fileID, filePath: StaticString = #filePath, line: Int = #line, column: Int = #column
    ) {
        let location = MarbleFailure.Location(fileID: fileID, filePath: filePath, line: line, column: column)
        reportDrivingOutsideRun("advance(by: \(duration))", at: location)
        advance(to: now + duration, at: location)
    }

    /// Moves virtual time forward to `time`, running what is due.
    public func advance(
        to time: Duration, fileID: StaticString = #fileID, filePath: StaticString = #filePath, line: Int = #line, column: Int = #column
    ) {
        let location = MarbleFailure.Location(fileID: fileID, filePath: filePath, line: line, column: column)
        reportDrivingOutsideRun("advance(to: \(time))", at: location)
        advance(to: time, at: location)
    }

    private func advance(to time: Duration, at location: MarbleFailure.Location) {
        setUpHot()
        if let runaway = drive(until: max(time, now)) {
            virtual.cancelAll()
            report("\(runaway) before reaching \(frameText(time, frame: frame)): work that never settles", at: location)
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
        if budget.exhausted, state.rare?.pendingRunaway == nil { rare.pendingRunaway = budget.loopDescription }
        return result
    }

    /// Runs virtual time and the async runtime's jobs until `limit` (see ``VirtualRuntime/drive(until:)``).
    /// - Returns: why it stopped early, or `nil` when it ran to the end.
    func drive(until limit: Duration?) -> String? {
        let outer = state.driving
        state.driving = true
        defer { state.driving = outer }
        return runtime.drive(until: limit)
    }
}
