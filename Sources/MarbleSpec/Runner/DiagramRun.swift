/// One run of a spec, stage by stage: streams, output, comparison, models, extent.
struct DiagramRun {
    let spec: DiagramSpec
    let scheduler = TestScheduler(frame: .milliseconds(1), stepLimit: DiagramRunner.baseStepLimit, reporter: MarbleFailure.Collector())
    var inners: [String: InnerStream] = [:]
    var inputObservables: [Observable<SpecItem>] = []
    var inputMessages: [[Recorded<Event<SpecItem>>]] = []
    var inputSubscriptions: [() -> [SubscriptionLog]] = []
    /// The `subscribed NAME:` lines, by name, as logs.
    var given: [String: [SubscriptionLog]] = [:]

    init(spec: DiagramSpec) { self.spec = spec }

    var parser: MarbleDiagram.Parser { scheduler.parser }

    func error(line: Int, column: Int, _ message: String) -> SpecError {
        SpecError(
            file: spec.file, line: line, column: column, lineText: spec.lines.indices.contains(line - 1) ? spec.lines[line - 1] : "",
            message: message)
    }

    func parse(_ stream: DiagramSpec.Stream, kind: MarbleDiagram.Kind) throws(SpecError) -> [Recorded<Event<SpecItem>>] {
        do {
            return try parser.parse(stream.diagram, kind: kind, error: MarbleError(), resolve: resolve)
        } catch {
            throw self.error(line: stream.line, column: stream.column + error.column - 1, error.reason)
        }
    }

    /// How many events `messages` hold; a located error past ``DiagramRunner/maxEvents``.
    func counted(_ messages: [Recorded<Event<SpecItem>>], of stream: DiagramSpec.Stream) throws(SpecError) -> Int {
        guard messages.count <= DiagramRunner.maxEvents else {
            throw error(
                line: stream.line, column: stream.column,
                "this timeline has \(messages.count) events; marblegen draws at most \(DiagramRunner.maxEvents) in one")
        }
        return messages.count
    }

    /// The `values:` entry for the key, else a number for digits, else the text.
    func value(for key: String) -> SpecValue? {
        if let v = spec.values[key] { return v }
        if let i = Int(key) { return .int(i) }
        return .string(key)
    }

    func resolve(_ key: String) -> SpecItem? {
        if let inner = inners[key] { return .inner(name: key, inner) }
        return value(for: key).map { .value($0) }
    }

    /// Inner observables first (inputs refer to them by name), then the inputs.
    mutating func makeStreams() throws(SpecError) {
        var events = 0
        for stream in spec.givenSubscriptions {
            let window = try window(stream)
            given[stream.name, default: []].append(SubscriptionLog(subscribed: window.subscribe, unsubscribed: window.unsubscribe))
        }
        for inner in spec.inners {
            let messages = try parse(inner, kind: .cold)
            events += try counted(messages, of: inner)
            let cold = scheduler.cold(messages: messages)
            let tally = InnerStream.counting(cold.asObservable())
            if let logs = given[inner.name] {
                // A test's inner: drawn from where the test's operator subscribed it.
                inners[inner.name] = InnerStream(name: inner.name, observable: tally.observable, messages: messages) { logs }
                continue
            }
            inners[inner.name] = InnerStream(
                name: inner.name, observable: tally.observable, messages: messages, delivered: tally.delivered
            ) { cold.subscriptions }
        }
        for input in spec.inputs {
            let messages = try parse(input, kind: input.kind == .hot ? .hot : .cold)
            events += try counted(messages, of: input)
            inputMessages.append(messages)
            if let logs = given[input.name] {
                inputObservables.append(scheduler.cold(messages: messages).asObservable())
                inputSubscriptions.append { logs }
            } else if input.kind == .hot {
                let hot = scheduler.hot(messages: messages)
                inputObservables.append(hot.asObservable())
                inputSubscriptions.append { hot.subscriptions }
            } else {
                let cold = scheduler.cold(messages: messages)
                inputObservables.append(cold.asObservable())
                inputSubscriptions.append { cold.subscriptions }
            }
        }
        // Each input event is a step or two of the operator's work: the limit grows with them, so
        // that it stops only work that never settles.
        scheduler.virtual.stepLimit = DiagramRunner.baseStepLimit + 8 * events
    }

    /// What one subscriber to the output got, in frames from the start of the run.
    struct SubscriberOutput {
        /// `output`, or the spec's `subscriber NAME`.
        var name: String
        var events: [Recorded<Event<SpecItem>>]
        /// The `subscriber` line's `^` and `!`; `nil` for the one subscriber of a plain spec.
        var window: (subscribe: Duration, unsubscribe: Duration?)?
        /// What it should get: `expected:` or `expected NAME:`.
        var expected: DiagramSpec.Stream?
    }

    /// The output: each subscriber's (one for a plain spec) from the operator, the spec's own
    /// `actual:`, or nothing; side effects the operator drew; and the operator box text.
    func computeOutputs() throws(SpecError) -> (outputs: [SubscriberOutput], effects: EffectLog?, label: String?) {
        if let call = spec.call {
            let (outputs, effects) = try runOperator(call)
            return (outputs, effects, call.text)
        }
        scheduler.flush()
        if let actual = spec.actual {
            return (
                [SubscriberOutput(name: "actual", events: try parse(actual, kind: .expected), expected: spec.expected)], nil, spec.title
            )
        }
        // A test's subscription expectation: its box names the expression, as a given output's does.
        let label = spec.expectedSubscriptions.isEmpty ? nil : spec.title
        return ([SubscriberOutput(name: "output", events: [], expected: spec.expected)], nil, label)
    }

    /// A `subscriber` or `connect` line's `^` and `!`, with errors at their columns.
    func window(_ stream: DiagramSpec.Stream) throws(SpecError) -> (subscribe: Duration, unsubscribe: Duration?) {
        let parsed: (subscribe: Duration?, unsubscribe: Duration?)
        do {
            parsed = try parser.parseSubscription(stream.diagram)
        } catch {
            throw self.error(line: stream.line, column: stream.column + error.column - 1, error.reason)
        }
        guard let start = parsed.subscribe else {
            let what = stream.name == "connect" ? "connects" : "subscribes"
            throw error(
                line: stream.line, column: stream.column, "mark where it \(what) with '^' (and where it leaves with '!'): '--^-----!'")
        }
        return (start, parsed.unsubscribe)
    }

    func runOperator(_ call: DiagramSpec.Call) throws(SpecError) -> ([SubscriberOutput], EffectLog) {
        let definition = try definition(for: call)
        let bound = try DiagramRunner.bind(call, to: definition, inputNames: spec.inputs.map(\.name)) { line, column, message in
            error(line: line, column: column, message)
        }
        let connection = try spec.connection.map { stream throws(SpecError) in try window(stream) }
        if let line = spec.connection?.line, !definition.connectable {
            throw error(line: line, column: 1, "'\(call.name)' does not connect: 'connect' is for publish and multicast")
        }
        if definition.connectable, connection == nil {
            throw error(
                line: call.line, column: call.column,
                "'\(call.name)' shares nothing until it is connected: add 'connect: ^' (and '!' where the connection is disposed)")
        }
        let effects = EffectLog(scheduler: scheduler)
        let context = OperatorContext(
            inputs: inputObservables, inputNames: spec.inputs.map(\.name), arguments: bound, definition: definition, scheduler: scheduler,
            effects: effects)
        let observable: Observable<SpecItem>
        do {
            observable = try definition.build(context)
        } catch {
            throw self.error(line: call.line, column: call.column, "\(error)")
        }
        // Bound the run: endless sources (interval) stop a little after the last input event.
        let written = spec.inputs + spec.subscribers + spec.subscriberExpectations + [spec.expected, spec.connection].compactMap { $0 }
        let longest = written.map { DiagramRunner.frameLength($0.diagram, parser) }.max() ?? 0
        scheduler.maxFrames = max(longest, 10) + 12
        let outputs = try runSubscribers(observable, connect: connection.map { ($0, context.connector) })
        try checkSettled(call)
        for output in outputs { try checkEvaluated(output.events, call) }
        return (outputs, effects)
    }

    /// Each `subscriber` line subscribes at its `^` and leaves at its `!` (none: one subscriber,
    /// `output`, from the start); a connectable operator connects at the `connect` line's `^`,
    /// after the subscribers of that frame.
    func runSubscribers(
        _ observable: Observable<SpecItem>, connect: ((subscribe: Duration, unsubscribe: Duration?), Connector)?
    ) throws(SpecError) -> [SubscriberOutput] {
        final class Slot { var recording: TestScheduler.Recording<SpecItem>? }
        var planned = [SubscriberOutput(name: "output", events: [], expected: spec.expected)]
        if !spec.subscribers.isEmpty {
            planned = []
            for (index, subscriber) in spec.subscribers.enumerated() {
                let expected = spec.subscriberExpectations.first { $0.name == subscriber.name } ?? (index == 0 ? spec.expected : nil)
                planned.append(SubscriberOutput(name: subscriber.name, events: [], window: try window(subscriber), expected: expected))
            }
        }
        let slots = planned.map { output -> Slot in
            let slot = Slot()
            guard let window = output.window else {
                slot.recording = scheduler.record(observable)
                return slot
            }
            _ = scheduler.schedule(after: window.subscribe) { slot.recording = scheduler.record(observable) }
            if let end = window.unsubscribe { _ = scheduler.schedule(after: end) { slot.recording?.dispose() } }
            return slot
        }
        if let (window, connector) = connect {
            final class ConnectionSlot { var connection: (any Disposable)? }
            let slot = ConnectionSlot()
            _ = scheduler.schedule(after: window.subscribe) { slot.connection = connector.connect?() }
            if let end = window.unsubscribe { _ = scheduler.schedule(after: end) { slot.connection?.dispose() } }
        }
        scheduler.flush()
        return zip(planned, slots).map { output, slot in
            var output = output
            let start = output.window?.subscribe ?? .zero
            output.events = (slot.recording?.events ?? []).map { Recorded(time: $0.time + start, value: $0.value) }
            slot.recording?.dispose()
            return output
        }
    }

    /// Work that never lets time pass (`interval(0)`, a loop of immediate resubscriptions) stops at
    /// the step limit; the spec is wrong, not the drawing.
    func checkSettled(_ call: DiagramSpec.Call) throws(SpecError) {
        guard let reason = scheduler.runawayReason else { return }
        throw error(line: call.line, column: call.column, "'\(call.text)' does not settle in virtual time: \(reason)")
    }

    /// A value where an inner observable belongs is a mistake in the spec (a missing `inner` line):
    /// reported where the operator is, not drawn as an ✕. An expression failing on a value stays an
    /// error event, which is how a diagram shows an operator that throws.
    func checkEvaluated(_ events: [Recorded<Event<SpecItem>>], _ call: DiagramSpec.Call) throws(SpecError) {
        for event in events {
            guard case .error(let problem as any SpecMistake) = event.value else { continue }
            let frame = Int(event.time / scheduler.frame)
            throw error(line: call.line, column: call.column, "at frame \(frame): \(problem)")
        }
    }

    func definition(for call: DiagramSpec.Call) throws(SpecError) -> OperatorDefinition {
        guard let definition = OperatorRegistry.all[call.name] else {
            let hint = OperatorRegistry.suggestion(for: call.name).map { " (did you mean '\($0)'?)" } ?? ""
            throw error(line: call.line, column: call.column, "unknown operator '\(call.name)'\(hint); `marblegen operators` lists them")
        }
        guard definition.inputs.contains(spec.inputs.count) else {
            let range = definition.inputs
            let wanted = range.lowerBound == range.upperBound ? "\(range.lowerBound)" : "\(range.lowerBound) to \(range.upperBound)"
            throw error(
                line: call.line, column: call.column,
                "'\(call.name)' takes \(wanted) input\(wanted == "1" ? "" : "s"), the spec has \(spec.inputs.count)")
        }
        return definition
    }

    /// The expected timeline when it differs from the output (both get their differing frames highlighted).
    func compareWithExpected(
        _ outputEvents: [Recorded<Event<SpecItem>>], _ expected: DiagramSpec.Stream?, output: inout TimelineModel
    ) throws(SpecError) -> (model: TimelineModel, mismatches: [MarbleMismatch], message: String)? {
        guard let expected else { return nil }
        let expectedEvents = try parse(expected, kind: .expected)
        // A spec's `#` names no error: any error the operator sends matches it.
        let erase = { (events: [Recorded<Event<SpecItem>>]) in
            events.map { recorded -> Recorded<Event<RecordedValue>> in
                if case .error = recorded.value { return Recorded(time: recorded.time, value: .error(MarbleError())) }
                return Recorded(time: recorded.time, value: recorded.value.map { RecordedValue.plain($0.description) })
            }
        }
        let comparison = MarbleComparison(expected: erase(expectedEvents), actual: erase(outputEvents), frame: scheduler.frame)
        guard !comparison.matches else { return nil }
        let frames = Array(Set(comparison.mismatches.map { $0.time / scheduler.frame })).sorted()
        var model = DiagramRunner.timeline(
            spec.subscribers.isEmpty ? "expected" : "expected \(expected.name)", expectedEvents, frame: scheduler.frame)
        model.highlights = frames
        output.highlights = frames
        return (model, comparison.mismatches, comparison.message())
    }

    /// A given-output spec's `expected subscribed NAME:` lines: the input's subscriptions as a
    /// row of brackets, and the expected ones below, the frames where they differ highlighted.
    func subscriptionRows() throws(SpecError) -> (actual: TimelineModel, expected: TimelineModel)? {
        guard let name = spec.expectedSubscriptions.first?.name else { return nil }
        var expected: [SubscriptionWindow] = []
        for stream in spec.expectedSubscriptions where stream.name == name {
            let window = try window(stream)
            expected.append(
                SubscriptionWindow(start: window.subscribe / scheduler.frame, end: window.unsubscribe.map { $0 / scheduler.frame }))
        }
        let actual = (given[name] ?? []).map {
            SubscriptionWindow(start: $0.subscribed / scheduler.frame, end: $0.unsubscribed.map { $0 / scheduler.frame })
        }
        var differing = Set<Double>()
        for index in 0..<max(actual.count, expected.count) {
            let a = index < actual.count ? actual[index] : nil
            let e = index < expected.count ? expected[index] : nil
            if a?.start != e?.start { differing.formUnion([a?.start, e?.start].compactMap { $0 }) }
            if a?.end != e?.end { differing.formUnion([a?.end ?? nil, e?.end ?? nil].compactMap { $0 }) }
        }
        var actualRow = TimelineModel(name: "subscribed \(name)", events: [], highlights: differing.sorted())
        actualRow.subscriptions = actual
        var expectedRow = TimelineModel(name: "expected", events: [], highlights: differing.sorted())
        expectedRow.subscriptions = expected
        return (actualRow, expectedRow)
    }

    func inputModels() -> [TimelineModel] {
        spec.inputs.enumerated().map { index, input in
            let logs = inputSubscriptions[index]()
            var messages = inputMessages[index]
            // With subscribers, a cold input is drawn as the run played it: once per
            // subscription, from its start, up to its end (refCount's resubscription repeats it).
            if !spec.subscribers.isEmpty, input.kind == .cold, !logs.isEmpty {
                messages = logs.flatMap { log in
                    messages.map { Recorded(time: $0.time + log.subscribed, value: $0.value) }
                        .filter { event in log.unsubscribed.map { event.time <= $0 } ?? true }
                }
            }
            var model = DiagramRunner.timeline(input.name, messages.filter { $0.time >= .zero }, frame: scheduler.frame)
            model.inners = DiagramRunner.innerTimelines(inputMessages[index], frame: scheduler.frame)
            // With several subscribers the source's subscriptions are what the diagram is about.
            model.subscriptions =
                spec.subscribers.isEmpty
                ? DiagramRunner.telling(logs, of: model, frame: scheduler.frame)
                : logs.map { SubscriptionWindow(start: $0.subscribed / scheduler.frame, end: $0.unsubscribed.map { $0 / scheduler.frame }) }
            return model
        }
    }

    /// The last frame any timeline reaches; a located error past ``DiagramRunner/maxFrames``.
    func frameCount(_ timelines: [TimelineModel]) throws(SpecError) -> Double {
        let written =
            spec.inputs + spec.subscribers + spec.subscriberExpectations + spec.givenSubscriptions + spec.expectedSubscriptions
            + [spec.expected, spec.actual, spec.connection].compactMap { $0 }
        let eventFrames = timelines.flatMap { t in t.events.map(\.frame) + t.inners.flatMap { i in i.events.map { i.start + $0.frame } } }
        let lengths = written.map { Double(DiagramRunner.frameLength($0.diagram, parser)) }
        let frames = max(eventFrames.max() ?? 0, lengths.max() ?? 0)
        let limit = spec.style.compressesGaps ? DiagramRunner.maxCompressedFrames : DiagramRunner.maxFrames
        if frames > Double(limit) {
            let longest = written.max { DiagramRunner.frameLength($0.diagram, parser) < DiagramRunner.frameLength($1.diagram, parser) }
            let hint =
                spec.style.compressesGaps ? "shorten the time progressions" : "shorten the time progressions, or drop style: gaps = full"
            throw error(
                line: longest?.line ?? 1, column: longest?.column ?? 1,
                "the diagram spans \(Int(frames)) frames; marblegen draws at most \(limit) (\(hint))")
        }
        return frames
    }
}
