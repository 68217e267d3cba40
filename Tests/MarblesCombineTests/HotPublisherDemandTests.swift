#if canImport(Combine) || OpenCombine
    import MarbleCore
    import MarblesCombine
    import MarblesTesting
    import Testing

    /// Hot test publishers under demand behave as Combine's own hot source, `PassthroughSubject`,
    /// fed the same diagram in the same test; cold ones hold values for their subscriber.
    @Suite("Hot and cold test publishers under demand")
    struct HotPublisherDemandTests {
        /// A `PassthroughSubject` playing `diagram` on the scheduler.
        func subject(_ s: TestScheduler, _ diagram: String) -> PassthroughSubject<String, Never> {
            let subject = PassthroughSubject<String, Never>()
            _ = s.hot(diagram).subscribe(onNext: { subject.send($0) }, onCompleted: { subject.send(completion: .finished) })
            return subject
        }

        @Test("a value sent while no demand is outstanding is dropped, and does not hold back the completion")
        func dropsUnrequested() {
            marbles { s in
                s.expect(s.hotPublisher("-a-b-c-d|"), demand: .max(2)).toBe("-a-b----|")
                s.expect(subject(s, "-a-b-c-d|"), demand: .max(2)).toBe("-a-b----|")
            }
        }

        @Test("flatMap(maxPublishers: .max(1)) drops outer values that arrive while an inner runs")
        func flatMapDropsWhileBusy() {
            marbles { s in
                let inner = { (value: String) in s.coldPublisher("--\(value)|") }
                s.expect(s.hotPublisher("-a-b----c|").flatMap(maxPublishers: .max(1), inner)).toBe("---a------c|")
                s.expect(subject(s, "-a-b----c|").flatMap(maxPublishers: .max(1), inner)).toBe("---a------c|")
            }
        }

        @Test("a cold publisher holds values until its subscriber asks for them")
        func coldHolds() {
            marbles { s in
                s.expect(s.coldPublisher("-a-b-c|").flatMap(maxPublishers: .max(1)) { s.coldPublisher("--\($0)|") })
                    .toBe("---a--b--c|")
            }
        }
    }
#endif
