#if canImport(Combine) || OpenCombine
    import MarblesCombine
    import MarblesTesting
    import Testing

    // In a file importing MarblesCombine, Combine and MarbleCore both name a `Scheduler` and an
    // `ImmediateScheduler`: the unqualified spellings that work on every platform are
    // `CombineScheduler` / `CombineImmediateScheduler` for Combine's, `MarbleCore.Scheduler` /
    // `MarbleCore.ImmediateScheduler` for ours.

    func debounced<S: CombineScheduler>(_ queries: some Publisher<String, Never>, on scheduler: S) -> AnyPublisher<String, Never> {
        queries.debounce(for: .zero, scheduler: scheduler).eraseToAnyPublisher()
    }

    @Suite("Scheduler names in MarblesCombine files")
    struct CombineSpellingTests {
        @Test("CombineScheduler and CombineImmediateScheduler are Combine's; MarbleCore's are qualified")
        func combineNames() {
            let immediate: CombineImmediateScheduler = .shared
            let core: any MarbleCore.Scheduler = MarbleCore.ImmediateScheduler.instance
            var received: [String] = []
            let cancellable = debounced(Just("a"), on: immediate).sink { received.append($0) }
            #expect(received == ["a"])
            _ = (cancellable, core)
        }
    }
#endif
