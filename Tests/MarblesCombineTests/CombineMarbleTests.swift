#if canImport(Combine) || OpenCombine
    import MarblesCombine
    import MarblesTesting
    import Testing

    struct Failure: Error, Equatable {}

    @Suite("Combine operators in marble tests (OpenCombine on Linux)")
    struct CombineMarbleTests {
        @Test("debounce, throttle (latest and first), delay, timeout and measureInterval on the marble clock")
        func timing() {
            marbles { s in
                let c = s.combine
                let e1 = s.hotPublisher("-a-b----c---|")
                s.expect(e1.debounce(for: .milliseconds(2), scheduler: c)).toBe("-----b----c-|")
                s.expect(subscriptions: e1.subscriptions).toBe("^-----------!")
                s.expect(s.hotPublisher("-abc---d-e------|").throttle(for: .milliseconds(3), scheduler: c, latest: true))
                    .toBe("-a--c--d--e-----|")
                s.expect(s.hotPublisher("-abc---d-e------|").throttle(for: .milliseconds(3), scheduler: c, latest: false))
                    .toBe("-a--b--d--e-----|")
                s.expect(s.hotPublisher("-a-b-|").delay(for: .milliseconds(2), scheduler: c)).toBe("---a-b-|")
                // OpenCombine differs from Apple here: after timing out, its Timeout leaves its repeating
                // timer running (its cancel() returns early once terminal), so the run is bounded.
                s.maxFrames = 30
                s.expect(s.hotPublisher("-a-b------c|").timeout(.milliseconds(3), scheduler: c)).toBe("-a-b--|")
                s.expect(s.hotPublisher("-a--b|").measureInterval(using: c).map { "\($0.duration)" })
                    .toBe("-x--y|", values: ["x": "0.001 seconds", "y": "0.003 seconds"])
            }
        }

        @Test("flatMap(maxPublishers:) and switchToLatest, with inner subscription logs")
        func flattening() {
            marbles { s in
                let x = s.coldPublisher("--1-2|")
                let y = s.coldPublisher("-3|")
                let outer = s.hotPublisher("-x-y-----|", values: ["x": x, "y": y])
                // y arrives at frame 3 while x holds the one demand: a hot source drops it, as Combine's
                // PassthroughSubject does (HotPublisherDemandTests compares the two).
                s.expect(outer.flatMap(maxPublishers: .max(1)) { $0 }).toBe("---1-2---|")
                s.expect(subscriptions: y.subscriptions).toBe([])
                let z = s.coldPublisher("--5-6|")
                let w = s.coldPublisher("-7|")
                let switching = s.hotPublisher("-z--w----|", values: ["z": z, "w": w])
                s.expect(switching.switchToLatest()).toBe("---5-7---|")
                s.expect(subscriptions: z.subscriptions).toBe("-^--!")
                // The outer stream recorded with its inner publishers as timelines.
                s.expect(s.hotPublisher("-z---|", values: ["z": s.coldPublisher("-q|")]))
                    .toBe("-z---|", values: ["z": s.cold("-q|")])
            }
        }

        @Test("receive(on:) and subscribe(on:) hop onto the marble clock without moving time; autoconnect connects at the first subscriber")
        func threadingAndAutoconnect() {
            marbles { s in
                let c = s.combine
                let e1 = s.hotPublisher("-a-b-|")
                s.expect(e1.receive(on: c)).toBe("-a-b-|")
                let e2 = s.coldPublisher("-a-b-|")
                s.expect(e2.subscribe(on: c)).toBe("-a-b-|")
                s.expect(subscriptions: e2.subscriptions).toBe("^----!")
                let e3 = s.coldPublisher("-a-b-|")
                let connected = e3.makeConnectable().autoconnect()
                s.expect(connected).toBe("-a-b-|")
                s.expect(subscriptions: e3.subscriptions).toBe("^----!")
            }
        }

        @Test("zip pairs by index (OpenCombine 0.14 has no merge, combineLatest or collect(.byTime) to test)")
        func combining() {
            marbles { s in
                let a = s.hotPublisher("--a--b-----c--|")
                let b = s.hotPublisher("-----1--2--3-----|")
                s.expect(a.zip(b).map { $0 + $1 }).toBe("-----x--y--z--|", values: ["x": "a1", "y": "b2", "z": "c3"])
            }
        }

        @Test("catch, retry, tryMap and replaceError, with typed failures")
        func errors() {
            marbles { s in
                let e1 = s.hotPublisher("-a-#", values: ["a": "a"], error: Failure())
                s.expect(e1.catch { _ in s.coldPublisher("-z|") }).toBe("-a--z|")
                let e2 = s.coldPublisher("-a#", values: ["a": "a"], error: Failure())
                s.expect(e2.retry(2)).toBe("-a-a-a#", error: Failure())
                s.expect(subscriptions: e2.subscriptions).toBe(["^-!", "--^-!", "----^-!"])
                s.expect(
                    s.hotPublisher("-a-b-|").tryMap { value -> String in
                        if value == "b" { throw Failure() }
                        return value
                    }
                )
                .toBe("-a-#", error: Failure())
                s.expect(s.hotPublisher("-a-#", values: ["a": "a"], error: Failure()).replaceError(with: "r")).toBe("-a-(r|)")
            }
        }

        @Test("share and multicast: one upstream subscription for several subscribers")
        func sharing() {
            marbles { s in
                let e1 = s.coldPublisher("-a-b-c|")
                let shared = e1.share()
                s.expect(shared).toBe("-a-b-c|")
                s.expect(shared, unsubscribe: "--^----!").toBe("---b-c|")
                s.expect(subscriptions: e1.subscriptions).toBe("^-----!")
                let e2 = s.hotPublisher("-a-b-c|")
                let multicast = e2.multicast(subject: PassthroughSubject())
                s.expect(multicast).toBe("-a-b-c|")
                s.expect(subscriptions: e2.subscriptions).toBe("^-----!")
                // The connection lasts as long as its cancellable: keep it for the run.
                let connection = multicast.connect()
                s.flush()
                connection.cancel()
            }
        }

        @Test("unsubscribing cancels at that frame; a chosen demand is all a subscriber gets, and is logged")
        func cancellationAndDemand() {
            marbles { s in
                let e1 = s.hotPublisher("-a-b-c-|")
                s.expect(e1.map { $0 }, unsubscribe: "^--!").toBe("-a-")
                s.expect(subscriptions: e1.subscriptions).toBe("^--!")
                let e2 = s.coldPublisher("-a-b-c-|")
                s.expect(e2, demand: .max(2)).toBe("-a-b")
                s.flush()
                #expect(e2.demands == [DemandRequest(time: .zero, demand: .max(2))])
            }
        }

        @Test("bridges: an observable drives a Combine pipeline and a publisher drives an observable chain")
        func bridges() {
            marbles { s in
                let e1 = s.hot("-a-b-|")
                s.expect(e1.publisher.map { $0 + "!" }).toBe("-x-y-|", values: ["x": "a!", "y": "b!"])
                s.expect(s.hotPublisher("-a-b-|").asObservable().map { $0 + "?" }).toBe("-x-y-|", values: ["x": "a?", "y": "b?"])
            }
        }
    }

    /// Runs a marble test body on a fresh scheduler reporting to the running test.
    func marbles(
        _ body: (TestScheduler) -> Void, fileID: StaticString = #fileID, filePath: StaticString = #filePath, line: Int = #line,
        column: Int = #column
    ) {
        let scheduler = TestScheduler()
        scheduler.run(fileID: fileID, filePath: filePath, line: line, column: column) { body(scheduler) }
    }
#endif
