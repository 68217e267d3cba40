/// One run of a spec, stage by stage: streams, output, comparison, models, extent.
struct DiagramRun {
    let spec: DiagramSpec
    let scheduler = TestScheduler(frame: .milliseconds(1), stepLimit: DiagramRunner.baseStepLimit, reporter: CollectingReporter())
    var inners: [String: InnerStream] = [:]
    var inputObservables: [Observable<SpecItem>] = []
    var inputMessages: [[Recorded<Event<SpecItem>>]] = []
    var inputSubscriptions: [() -> [SubscriptionLog]] = []

    init(spec: DiagramSpec) { self.spec = spec }

    var parser: MarbleParser { scheduler.parser }

    func error(line: Int, column: Int, _ message: String) -> SpecError {
        SpecError(
            file: spec.file, line: line, column: column, lineText: spec.lines.indices.contains(line - 1) ? spec.lines[line - 1] : "",
            message: message)
    }

    func parse(_ stream: DiagramSpec.Stream, kind: DiagramKind) throws(SpecError) -> [Recorded<Event<SpecItem>>] {
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
        for inner in spec.inners {
            let messages = try parse(inner, kind: .cold)
            events += try counted(messages, of: inner)
            let cold = scheduler.cold(messages: messages)
            let tally = InnerStream.counting(cold.asObservable())
            inners[inner.name] = InnerStream(
                name: inner.name, observable: tally.observable, messages: messages, delivered: tally.delivered
            ) { cold.subscriptions }
        }
        for input in spec.inputs {
            let messages = try parse(input, kind: input.kind == .hot ? .hot : .cold)
            events += try counted(messages, of: input)
            inputMessages.append(messages)
            if input.kind == .hot {
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

    /// The output: the operator's, the spec's own `actual:`, or nothing; and the operator box text.
    func computeOutput() throws(SpecError) -> ([Recorded<Event<SpecItem>>], String?) {
        if let call = spec.call { return (try runOperator(call), call.text) }
        scheduler.flush()
        if let actual = spec.actual { return (try parse(actual, kind: .expected), spec.title) }
        return ([], nil)
    }

    func runOperator(_ call: DiagramSpec.Call) throws(SpecError) -> [Recorded<Event<SpecItem>>] {
        let definition = try definition(for: call)
        let bound = try DiagramRunner.bind(call, to: definition, inputNames: spec.inputs.map(\.name)) { line, column, message in
            error(line: line, column: column, message)
        }
        let context = OperatorContext(
            inputs: inputObservables, inputNames: spec.inputs.map(\.name), arguments: bound, definition: definition, scheduler: scheduler)
        let observable: Observable<SpecItem>
        do {
            observable = try definition.build(context)
        } catch {
            throw self.error(line: call.line, column: call.column, "\(error)")
        }
        // Bound the run: endless sources (interval) stop a little after the last input event.
        let longest = (spec.inputs + [spec.expected].compactMap { $0 }).map { DiagramRunner.frameLength($0.diagram, parser) }.max() ?? 0
        scheduler.maxFrames = max(longest, 10) + 12
        let recording = scheduler.record(observable)
        scheduler.flush()
        recording.dispose()
        try checkSettled(call)
        try checkEvaluated(recording.events, call)
        return recording.events
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
            guard case .error(let problem as MissingInnerObservable) = event.value else { continue }
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
        _ outputEvents: [Recorded<Event<SpecItem>>], output: inout TimelineModel
    ) throws(SpecError) -> (model: TimelineModel, mismatches: [MarbleMismatch], message: String)? {
        guard let expected = spec.expected else { return nil }
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
        var model = DiagramRunner.timeline("expected", expectedEvents, frame: scheduler.frame)
        model.highlights = frames
        output.highlights = frames
        return (model, comparison.mismatches, comparison.message())
    }

    func inputModels() -> [TimelineModel] {
        spec.inputs.enumerated().map { index, input in
            var model = DiagramRunner.timeline(input.name, inputMessages[index].filter { $0.time >= .zero }, frame: scheduler.frame)
            model.inners = DiagramRunner.innerTimelines(inputMessages[index], frame: scheduler.frame)
            model.subscriptions = DiagramRunner.telling(inputSubscriptions[index](), of: model, frame: scheduler.frame)
            return model
        }
    }

    /// The last frame any timeline reaches; a located error past ``DiagramRunner/maxFrames``.
    func frameCount(_ timelines: [TimelineModel]) throws(SpecError) -> Double {
        let written = spec.inputs + [spec.expected, spec.actual].compactMap { $0 }
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
