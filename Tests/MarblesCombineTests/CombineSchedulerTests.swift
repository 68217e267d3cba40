#if canImport(Combine) || OpenCombine
    import MarblesCombine
    import MarblesTesting
    import Testing

    @Suite("TestScheduler as a Combine scheduler")
    struct CombineSchedulerTests {
        @Test("advance(by:) and advance(to:) run what is due, in due-time order")
        func advance() {
            let scheduler = TestScheduler()
            let combine = scheduler.combine
            var fired: [String] = []
            combine.schedule(after: combine.now.advanced(by: .milliseconds(2))) { fired.append("2 ms") }
            combine.schedule(after: combine.now.advanced(by: .milliseconds(1))) { fired.append("1 ms") }
            combine.schedule { fired.append("now") }
            #expect(fired.isEmpty)
            scheduler.advance(by: .zero)
            #expect(fired == ["now"])
            scheduler.advance(by: .milliseconds(1))
            #expect(fired == ["now", "1 ms"])
            scheduler.advance(to: .milliseconds(5))
            #expect(fired == ["now", "1 ms", "2 ms"])
            #expect(combine.now == CombineTestScheduler.VirtualInstant(.milliseconds(5)))
        }

        @Test("flush runs everything; actions due at one instant run in the order they were scheduled")
        func fifoTies() {
            let scheduler = TestScheduler()
            let combine = scheduler.combine
            var fired: [Int] = []
            for i in 0..<5 { combine.schedule(after: combine.now.advanced(by: .seconds(1))) { fired.append(i) } }
            scheduler.flush()
            #expect(fired == [0, 1, 2, 3, 4])
            #expect(scheduler.now == .seconds(1))
        }

        @Test("periodic work fires every interval until cancelled")
        func periodic() {
            let scheduler = TestScheduler()
            let combine = scheduler.combine
            var ticks: [Duration] = []
            let cancellable = combine.schedule(after: combine.now.advanced(by: .milliseconds(1)), interval: .milliseconds(2)) {
                ticks.append(scheduler.now)
            }
            scheduler.advance(by: .milliseconds(5))
            #expect(ticks == [.milliseconds(1), .milliseconds(3), .milliseconds(5)])
            cancellable.cancel()
            scheduler.advance(by: .milliseconds(10))
            #expect(ticks.count == 3)
        }

        @Test("a date in the past runs at the next advance; nested work at the same instant runs in the same advance")
        func pastAndNested() {
            let scheduler = TestScheduler()
            let combine = scheduler.combine
            scheduler.advance(by: .milliseconds(10))
            var fired: [String] = []
            combine.schedule(after: CombineTestScheduler.VirtualInstant(.milliseconds(3))) {
                fired.append("past")
                combine.schedule { fired.append("nested") }
            }
            scheduler.advance(by: .zero)
            #expect(fired == ["past", "nested"])
            #expect(scheduler.now == .milliseconds(10))
        }

        @Test("strides convert from Duration and from Combine's spellings")
        func strides() {
            typealias Stride = CombineTestScheduler.Stride
            #expect(Stride.milliseconds(1500) == Stride(.seconds(1.5)))
            #expect(Stride.seconds(2) + .microseconds(3) == Stride(.seconds(2) + .microseconds(3)))
            #expect((Stride.milliseconds(-4)).magnitude == .milliseconds(4))
            let start = CombineTestScheduler.VirtualInstant(.milliseconds(2))
            #expect(start.distance(to: start.advanced(by: .nanoseconds(7))) == .nanoseconds(7))
        }
    }
#endif
