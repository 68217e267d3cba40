extension TestScheduler {
    /// A cold observable whose values are looked up in `values`; each subscription replays
    /// the diagram from its own frame 0.
    ///
    /// A malformed diagram is reported here and gives an observable that never emits.
    ///
    /// `name` is what diagrams of the test call it (in `MARBLES_DIAGRAM_DIR` specs and the
    /// pictures attached to a failing test); by default the name the test's source gives it
    /// (`let clicks = scheduler.cold(…)` is `clicks`).
    @inlinable
    public func cold<Value>(
        _ diagram: String, values: [String: Value], error: any Error = MarbleError.boxed, name: String? = nil,
        fileID: StaticString = #fileID, filePath: StaticString = #filePath, line: Int = #line, column: Int = #column
    ) -> TestScheduler.ColdObservable<Value> {
        let location = MarbleFailure.Location(fileID: fileID, filePath: filePath, line: line, column: column)
        return cold(
            messages: parse(diagram, .cold, values, error, location), declaration: TestObservableDeclaration(name: name, location: location)
        )
    }

    /// A cold observable whose values are the diagram's characters (or quoted texts).
    public func cold(
        _ diagram: String, error: any Error = MarbleError.boxed, name: String? = nil,
        fileID: StaticString = #fileID, filePath: StaticString = #filePath, line: Int = #line, column: Int = #column
    ) -> TestScheduler.ColdObservable<String> {
        let location = MarbleFailure.Location(fileID: fileID, filePath: filePath, line: line, column: column)
        return cold(
            messages: parseKeepingLast(diagram, .cold, error, location),
            declaration: TestObservableDeclaration(name: name, location: location))
    }

    /// A hot observable whose values are looked up in `values`; it emits at the diagram's
    /// frames (counted from its `^`) whoever is subscribed. `name`: as for
    /// ``cold(_:values:error:name:fileID:filePath:line:column:)``.
    @inlinable
    public func hot<Value>(
        _ diagram: String, values: [String: Value], error: any Error = MarbleError.boxed, name: String? = nil,
        fileID: StaticString = #fileID, filePath: StaticString = #filePath, line: Int = #line, column: Int = #column
    ) -> TestScheduler.HotObservable<Value> {
        let location = MarbleFailure.Location(fileID: fileID, filePath: filePath, line: line, column: column)
        return hot(
            messages: parse(diagram, .hot, values, error, location), declaration: TestObservableDeclaration(name: name, location: location))
    }

    /// A hot observable whose values are the diagram's characters (or quoted texts).
    public func hot(
        _ diagram: String, error: any Error = MarbleError.boxed, name: String? = nil,
        fileID: StaticString = #fileID, filePath: StaticString = #filePath, line: Int = #line, column: Int = #column
    ) -> TestScheduler.HotObservable<String> {
        let location = MarbleFailure.Location(fileID: fileID, filePath: filePath, line: line, column: column)
        return hot(
            messages: parseKeepingLast(diagram, .hot, error, location),
            declaration: TestObservableDeclaration(name: name, location: location))
    }

    /// A cold observable of messages built by hand (times relative to each subscription).
    @inlinable
    public func cold<Value>(messages: [Recorded<Event<Value>>]) -> TestScheduler.ColdObservable<Value> {
        cold(messages: messages, declaration: nil)
    }

    @inlinable
    func cold<Value>(messages: [Recorded<Event<Value>>], declaration: TestObservableDeclaration?) -> TestScheduler.ColdObservable<Value> {
        let cold = TestScheduler.ColdObservable(messages: messages, scheduler: self, declaration: declaration)
        state.testObservables.append(cold)
        return cold
    }

    /// A hot observable of messages built by hand (times relative to now; set up at the run's start).
    @inlinable
    public func hot<Value>(messages: [Recorded<Event<Value>>]) -> TestScheduler.HotObservable<Value> {
        hot(messages: messages, declaration: nil)
    }

    @inlinable
    func hot<Value>(messages: [Recorded<Event<Value>>], declaration: TestObservableDeclaration?) -> TestScheduler.HotObservable<Value> {
        let hot = TestScheduler.HotObservable(messages: messages, scheduler: self, declaration: declaration)
        if state.driving { hot.setUp() } else { state.hotToSetUp.append(hot.setUp) }
        state.testObservables.append(hot)
        return hot
    }

    /// The time up to the first `|` of `diagram` (RxJS `time()`), to pass to operators.
    public func time(
        _ diagram: String, fileID: StaticString = #fileID, filePath: StaticString = #filePath, line: Int = #line, column: Int = #column
    ) -> Duration {
        do {
            return try parser.time(diagram)
        } catch {
            report(error.description, at: MarbleFailure.Location(fileID: fileID, filePath: filePath, line: line, column: column))
            return .zero
        }
    }

    /// `cold("-a-b|")`, as a leak report names a test observable.
    @usableFromInline
    func name(_ kind: MarbleDiagram.Kind, _ messages: [Recorded<Event<RecordedValue>>]) -> String {
        let diagram = MarbleDiagram.Printer(frame: frame).print(messages, label: \.description).text
        return "\(kind == .hot ? "hot" : "cold")(\"\(diagram.count > 60 ? String(diagram.prefix(59)) + "…" : diagram)\")"
    }

    /// The messages of a diagram whose values are its own characters. The last one parsed
    /// with the default error is kept, so a test that makes the same observable again and again
    /// (in a `flatMap`'s selector, per outer value) parses it once and shares its messages. Not
    /// one that did not parse: that is reported each time.
    func parseKeepingLast(
        _ diagram: String, _ kind: MarbleDiagram.Kind, _ error: any Error, _ location: MarbleFailure.Location
    ) -> [Recorded<Event<String>>] {
        let defaultError = (error as? MarbleError) == MarbleError()
        if defaultError, let last = state.lastParsed, last.kind == kind, last.diagram == diagram { return last.messages }
        do {
            let messages = try parser.parse(diagram, kind: kind, values: [String: String](), error: error)
            if defaultError { state.lastParsed = (diagram, kind, messages) }
            return messages
        } catch {
            report(error.description, at: location)
            return []
        }
    }

    @inlinable
    func parse<Value>(
        _ diagram: String, _ kind: MarbleDiagram.Kind, _ values: [String: Value], _ error: any Error, _ location: MarbleFailure.Location
    ) -> [Recorded<Event<Value>>] {
        do {
            return try parser.parse(diagram, kind: kind, values: values, error: error)
        } catch {
            report(error.description, at: location)
            return []
        }
    }
}
