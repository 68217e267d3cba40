import MarbleCore
import MarblesTesting
import SearchApp
import Testing

/// Races a FIFO run hides, found by exploring the orders of the work ready at one instant: each
/// buggy version passes a plain run and fails an exploration (kept as a known issue), and its fix
/// passes every schedule.
@Suite("Races found by exploring schedules")
struct RaceTests {
    /// A search service whose responses all take 100 ms.
    static let api = SearchAPI { query in
        try? await Task.sleep(for: .milliseconds(100))
        return [query.uppercased()]
    }

    // MARK: A stale response (@MainActor model)

    /// Two keystrokes at once; at 200 ms the model shows the latest query's results.
    @MainActor static func twoKeystrokes(_ s: TestScheduler, typed: @escaping (String) -> Void, shown: @escaping () -> [String]) {
        let final = PublishSubject<[String]>()
        let recorded = s.expect(final)
        typed("sw")
        typed("swift")
        s.schedule(after: .milliseconds(200)) {
            final.onNext(shown())
            final.onCompleted()
        }
        recorded.toBe("--(x|)", values: ["x": ["SWIFT"]])
    }

    @MainActor @Test("naive suggestions: a FIFO run passes")
    func naiveSuggestionsPassFIFO() {
        let scheduler = TestScheduler(frame: .milliseconds(100))
        scheduler.run {
            let model = NaiveSuggestions(api: Self.api)
            Self.twoKeystrokes(scheduler, typed: model.typed, shown: { model.shown })
        }
    }

    @MainActor @Test("naive suggestions: exploring finds the older response landing last")
    func naiveSuggestionsRace() {
        withKnownIssue {
            exploreSchedules(frame: .milliseconds(100)) { s in
                let model = NaiveSuggestions(api: Self.api)
                Self.twoKeystrokes(s, typed: model.typed, shown: { model.shown })
            }
        }
    }

    @MainActor @Test("latest suggestions: every schedule shows the latest query's results")
    func latestSuggestions() {
        exploreSchedules(frame: .milliseconds(100)) { s in
            let model = LatestSuggestions(api: Self.api)
            Self.twoKeystrokes(s, typed: model.typed, shown: { model.shown })
        }
    }

    // MARK: A cached write landing after the fresh one

    static func profile(
        _ s: TestScheduler,
        _ make: (_ cached: @escaping @Sendable () async -> String, _ fresh: @escaping @Sendable () async -> String) -> any ProfileLoading
    ) {
        let loader = make(
            {
                try? await Task.sleep(for: .milliseconds(100))
                return "cached"
            },
            {
                try? await Task.sleep(for: .milliseconds(100))
                return "fresh"
            })
        s.expect(emitting: String.self) { emit in
            await loader.load()
            emit(loader.shown)
        }.toBe("-(x|)", values: ["x": "fresh"])
    }

    @Test("naive profile: a FIFO run passes")
    func naiveProfilePassesFIFO() {
        let scheduler = TestScheduler(frame: .milliseconds(100))
        scheduler.run { Self.profile(scheduler) { NaiveProfile(cached: $0, fresh: $1) } }
    }

    @Test("naive profile: exploring finds the cached profile overwriting the fresh one")
    func naiveProfileRace() {
        withKnownIssue {
            exploreSchedules(frame: .milliseconds(100)) { s in Self.profile(s) { NaiveProfile(cached: $0, fresh: $1) } }
        }
    }

    @Test("fresh-first profile: every schedule shows the fresh profile")
    func freshFirstProfile() {
        exploreSchedules(frame: .milliseconds(100)) { s in Self.profile(s) { FreshFirstProfile(cached: $0, fresh: $1) } }
    }

    // MARK: Actor reentrancy: two callers both miss the cache

    /// A prefetcher asks for an image at once; the view asks after its layout pass (one hop).
    static func prefetchAndView(
        _ s: TestScheduler, _ image: @escaping @Sendable (String) async -> String, downloads: @escaping @Sendable () async -> Int
    ) {
        s.expect(emitting: Int.self) { emit in
            let prefetch = Task { _ = await image("a.png") }
            let view = Task {
                await Task.yield()  // the view's layout pass
                _ = await image("a.png")
            }
            await prefetch.value
            await view.value
            emit(await downloads())
        }.toBe("(x|)", values: ["x": 1])
    }

    static let download: @Sendable (String) async -> String = { url in "pixels of \(url)" }

    @Test("naive image cache: a FIFO run downloads once")
    func naiveCachePassesFIFO() {
        let scheduler = TestScheduler()
        scheduler.run {
            let cache = NaiveImageCache(download: Self.download)
            Self.prefetchAndView(scheduler, { await cache.image($0) }, downloads: { await cache.downloads })
        }
    }

    @Test("naive image cache: exploring finds both callers missing the cache and downloading twice")
    func naiveCacheRace() {
        withKnownIssue {
            exploreSchedules { s in
                let cache = NaiveImageCache(download: Self.download)
                Self.prefetchAndView(s, { await cache.image($0) }, downloads: { await cache.downloads })
            }
        }
    }

    @Test("deduping image cache: every schedule downloads once")
    func dedupingCache() {
        exploreSchedules { s in
            let cache = DedupingImageCache(download: Self.download)
            Self.prefetchAndView(s, { await cache.image($0) }, downloads: { await cache.downloads })
        }
    }
}

/// What the profile examples share, for one test body.
protocol ProfileLoading: Sendable {
    var shown: String { get }
    func load() async
}

extension NaiveProfile: ProfileLoading {}
extension FreshFirstProfile: ProfileLoading {}
