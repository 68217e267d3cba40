import MarbleCore
import Marbles
import SearchApp

// MARK: Exploring schedules: how many schedules find each example race, what a schedule costs

/// The Examples' three races (buggy and fixed), as exploration bodies.
@MainActor private enum Races {
    static let api = SearchAPI { query in
        try? await Task.sleep(for: .milliseconds(100))
        return [query.uppercased()]
    }
    nonisolated static let download: @Sendable (String) async -> String = { url in "pixels of \(url)" }

    static func suggestions(fixed: Bool) -> (TestScheduler) -> Void {
        { s in
            let final = PublishSubject<[String]>()
            let recorded = s.expect(final)
            let typed: (String) -> Void
            let shown: () -> [String]
            if fixed {
                let model = LatestSuggestions(api: api)
                (typed, shown) = (model.typed, { model.shown })
            } else {
                let model = NaiveSuggestions(api: api)
                (typed, shown) = (model.typed, { model.shown })
            }
            typed("sw")
            typed("swift")
            s.schedule(after: .milliseconds(200)) {
                final.onNext(shown())
                final.onCompleted()
            }
            recorded.toBe("--(x|)", values: ["x": ["SWIFT"]])
        }
    }

    nonisolated static func profile(fixed: Bool) -> (TestScheduler) -> Void {
        { s in
            let cached: @Sendable () async -> String = {
                try? await Task.sleep(for: .milliseconds(100))
                return "cached"
            }
            let fresh: @Sendable () async -> String = {
                try? await Task.sleep(for: .milliseconds(100))
                return "fresh"
            }
            let naive = NaiveProfile(cached: cached, fresh: fresh)
            let fixedProfile = FreshFirstProfile(cached: cached, fresh: fresh)
            s.expect(emitting: String.self) { emit in
                if fixed {
                    await fixedProfile.load()
                    emit(fixedProfile.shown)
                } else {
                    await naive.load()
                    emit(naive.shown)
                }
            }.toBe("-(x|)", values: ["x": "fresh"])
        }
    }

    nonisolated static func imageCache(fixed: Bool) -> (TestScheduler) -> Void {
        { s in
            let naive = NaiveImageCache(download: download)
            let deduping = DedupingImageCache(download: download)
            let image: @Sendable (String) async -> String = { fixed ? await deduping.image($0) : await naive.image($0) }
            s.expect(emitting: Int.self) { emit in
                let prefetch = Task { _ = await image("a.png") }
                let view = Task {
                    await Task.yield()
                    _ = await image("a.png")
                }
                await prefetch.value
                await view.value
                emit(fixed ? await deduping.downloads : await naive.downloads)
            }.toBe("(x|)", values: ["x": 1])
        }
    }
}

@MainActor func explorationBenchmarks() {
    let location = MarbleFailure.Location(fileID: #fileID, filePath: #filePath, line: #line, column: #column)
    let frame = Duration.milliseconds(100)
    let seeds = options.quick ? 20 : 100
    let races: [(String, (TestScheduler) -> Void)] = [
        ("stale response (@MainActor model)", Races.suggestions(fixed: false)),
        ("cached write after the fresh one", Races.profile(fixed: false)),
        ("actor reentrancy double download", Races.imageCache(fixed: false)),
    ]
    let strategies: [(String, ScheduleExploration.Strategy)] = [
        ("uniform", .uniform), ("PCT d=2", .pct(depth: 2, horizon: 20)), ("PCT d=3", .pct(depth: 3, horizon: 20)),
    ]
    say("== exploring schedules: schedules to find each race, over \(seeds) seeds (budget 100), and shrinking")
    for (name, body) in races {
        for (strategyName, strategy) in strategies {
            var found: [Int] = []
            var shrinkTimes: [Double] = []
            var deviations: [Int] = []
            for seed in 1...UInt64(seeds) {
                let outcome = ScheduleExploration.check(
                    schedules: 100, strategy: strategy, seed: seed, frame: frame, reporter: MarbleFailure.Collector(), location: location,
                    body)
                guard let failure = outcome.failure else { continue }
                found.append(failure.scheduleNumber)
                shrinkTimes.append(nanoseconds(failure.shrinkTime) / 1e6)
                deviations.append(failure.deviations.count)
            }
            found.sort()
            shrinkTimes.sort()
            let median = found.isEmpty ? 0 : found[found.count / 2]
            let shrinkMedian = String(format: "%.1f", shrinkTimes.isEmpty ? 0 : shrinkTimes[shrinkTimes.count / 2])
            say(
                "  \((name + ", " + strategyName).padding(toLength: 48, withPad: " ", startingAt: 0)) found by \(found.count)/\(seeds); "
                    + "schedules median \(median), max \(found.last ?? 0); \(deviations.min() ?? 0)–\(deviations.max() ?? 0) "
                    + "deviation(s); shrink median \(shrinkMedian) ms, max \(String(format: "%.1f", shrinkTimes.last ?? 0)) ms")
        }
    }
    let runs = options.quick ? 50 : 200
    let fixed: [(String, (TestScheduler) -> Void)] = [
        ("stale response, fixed", Races.suggestions(fixed: true)),
        ("cached write, fixed", Races.profile(fixed: true)),
        ("image cache, fixed", Races.imageCache(fixed: true)),
    ]
    for (name, body) in fixed {
        compare(
            "one schedule of the \(name) test (\(runs) schedules)", unit: .microseconds(per: runs),
            [
                Contender("FIFO run (TestScheduler.run)") {
                    for _ in 0..<runs {
                        let scheduler = TestScheduler(frame: frame, reporter: MarbleFailure.Collector())
                        scheduler.run { body(scheduler) }
                    }
                },
                Contender("explored schedules (seeded choices)") {
                    let outcome = ScheduleExploration.check(
                        schedules: runs, seed: 1, frame: frame, reporter: MarbleFailure.Collector(), location: location, body)
                    precondition(outcome.failure == nil && outcome.schedules == runs)
                },
            ])
    }
}
