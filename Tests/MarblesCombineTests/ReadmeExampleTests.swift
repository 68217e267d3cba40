#if canImport(Combine) || OpenCombine
    import MarblesCombine
    import MarblesTesting
    import Testing

    // The README's Combine example, verbatim.

    struct SearchViewModel {
        let results: AnyPublisher<[String], Never>

        init<Queries: Publisher, S: CombineScheduler>(
            queries: Queries, search: @escaping (String) -> AnyPublisher<[String], Never>, scheduler: S
        ) where Queries.Output == String, Queries.Failure == Never {
            results =
                queries
                .debounce(for: .milliseconds(300), scheduler: scheduler)
                .removeDuplicates()
                .flatMap(maxPublishers: .max(1), search)
                .eraseToAnyPublisher()
        }
    }

    @Test("search waits for a pause in typing, skips a repeated query, and shows each result")
    func searchViewModel() {
        let scheduler = TestScheduler(frame: .milliseconds(100))
        scheduler.run {
            let queries = scheduler.hotPublisher("-a----a-----b----|", values: ["a": "swift", "b": "rx"])
            let model = SearchViewModel(
                queries: queries,
                search: { query in scheduler.coldPublisher("-r|", values: ["r": [query.uppercased()]]).eraseToAnyPublisher() },
                scheduler: scheduler.combine)
            scheduler.expect(model.results).toBe("-----x----------y|", values: ["x": ["SWIFT"], "y": ["RX"]])
        }
    }
#endif
