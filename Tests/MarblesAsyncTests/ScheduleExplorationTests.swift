import MarbleCore
import MarblesTesting
import Testing

@testable import Marbles
@testable import MarblesRuntime

/// Two searches whose responses arrive at the same instant; the buggy one shows whichever
/// response lands last, the fixed one only the latest search's.
@available(macOS 15.0, iOS 18.0, watchOS 11.0, tvOS 18.0, visionOS 2.0, *)
final class Searches: @unchecked Sendable {
    private(set) var shown = ""
    private var generation = 0
    private let fixed: Bool

    init(fixed: Bool) { self.fixed = fixed }

    func search(_ query: String) -> Task<Void, Never> {
        generation += 1
        let mine = generation
        return Task {
            try? await Task.sleep(for: .milliseconds(100))
            if fixed, mine != generation { return }
            shown = query
        }
    }
}

@available(macOS 15.0, iOS 18.0, watchOS 11.0, tvOS 18.0, visionOS 2.0, *)
final class Box<Value>: @unchecked Sendable {
    var value: Value
    init(_ value: Value) { self.value = value }
}

@Suite("Exploring same-instant schedules")
struct ScheduleExplorationTests {
    @available(macOS 15.0, iOS 18.0, watchOS 11.0, tvOS 18.0, visionOS 2.0, *)
    static func twoSearches(fixed: Bool) -> (TestScheduler) -> Void {
        { s in
            let searches = Searches(fixed: fixed)
            let first = searches.search("sw")
            let second = searches.search("swift")
            s.expect(emitting: String.self) { emit in
                await first.value
                await second.value
                emit(searches.shown)
            }.toBe("-(x|)", values: ["x": "swift"])
        }
    }

    static let location = MarbleFailure.Location(fileID: #fileID, filePath: #filePath, line: #line, column: #column)

    @available(macOS 15.0, iOS 18.0, watchOS 11.0, tvOS 18.0, visionOS 2.0, *)
    @Test("only the smallest failing schedule's replay reaches the failure hook, and its picture is named for it")
    func smallestFailingScheduleIsAttached() throws {
        nonisolated(unsafe) var failed: [ExpectationOutcome] = []
        let outcome = ScheduleExploration.check(
            schedules: 100, seed: 42, frame: .milliseconds(100), reporter: MarbleFailure.Collector(), location: Self.location,
            listener: TestScheduler.Listener(testName: "staleResponse()", expectationFailed: { failed.append($0) }),
            Self.twoSearches(fixed: false))
        #expect(outcome.failure != nil)
        // Every schedule tried while searching and shrinking failed too; only the last replay is heard.
        let smallest = try #require(failed.count == 1 ? failed.first : nil, "\(failed.count) outcomes")
        let files = FailureAttachments.files(for: smallest, role: "smallest-failing-schedule")
        // Named for the failing `toBe` (in twoSearches) and the role.
        #expect(
            files.map(\.name) == ["svg", "marble"].map { "ScheduleExplorationTests-staleResponse-L47-smallest-failing-schedule.\($0)" },
            "\(files.map(\.name))")
        let svg = try #require(files.first { $0.name.hasSuffix(".svg") }).contents
        #expect(svg.contains(">swift<") && svg.contains(">sw<"), "expected swift, got sw: \(svg)")
    }

    @available(macOS 15.0, iOS 18.0, watchOS 11.0, tvOS 18.0, visionOS 2.0, *)
    @Test("a stale response that FIFO hides is found, shrunk to the deviations that matter, and reported with the seed")
    func findsStaleResponse() throws {
        let reporter = MarbleFailure.Collector()
        let outcome = ScheduleExploration.check(
            schedules: 100, seed: 42, frame: .milliseconds(100), reporter: reporter, location: Self.location,
            Self.twoSearches(fixed: false))
        let failure = try #require(outcome.failure)
        #expect(failure.scheduleNumber > 1, "the FIFO schedule passes")
        // Shrunk to one: the second search's task started first, so its response landed first.
        #expect(failure.deviations.count == 1, "\(failure.deviations)")
        #expect(failure.deviations.map(\.description) == ["job #2 ran before job #1 (2 jobs were ready)"])
        let message = try #require(reporter.failures.first?.message)
        #expect(message.contains("to 1 deviation(s) from FIFO"), "\(message)")
        #expect(message.contains("at frame 0: job #2 ran before job #1 (2 jobs were ready)"), "\(message)")
        #expect(message.contains("replay with seed: 0x2a or MARBLES_SEED=0x2a"), "\(message)")
        #expect(message.contains("marble diagrams differ at frame 1"), "\(message)")
    }

    @available(macOS 15.0, iOS 18.0, watchOS 11.0, tvOS 18.0, visionOS 2.0, *)
    @Test("the same seed replays the same failing schedule")
    func replays() {
        let runs = (0..<2).map { _ in
            ScheduleExploration.check(
                schedules: 100, seed: 7, frame: .milliseconds(100), reporter: MarbleFailure.Collector(), location: Self.location,
                Self.twoSearches(fixed: false))
        }
        #expect(runs[0].failure?.scheduleNumber == runs[1].failure?.scheduleNumber)
        #expect(runs[0].failure?.deviations.map(\.description) == runs[1].failure?.deviations.map(\.description))
    }

    @available(macOS 15.0, iOS 18.0, watchOS 11.0, tvOS 18.0, visionOS 2.0, *)
    @Test("the fixed code passes every schedule")
    func fixedPasses() {
        let reporter = MarbleFailure.Collector()
        let outcome = ScheduleExploration.check(
            schedules: 200, seed: 1, frame: .milliseconds(100), reporter: reporter, location: Self.location,
            Self.twoSearches(fixed: true))
        #expect(outcome.failure == nil && outcome.schedules == 200 && reporter.failures.isEmpty)
    }

    @available(macOS 15.0, iOS 18.0, watchOS 11.0, tvOS 18.0, visionOS 2.0, *)
    @Test("two sleepers waking at one instant: the order of their writes is explored")
    func wakesTogether() throws {
        let reporter = MarbleFailure.Collector()
        let outcome = ScheduleExploration.check(
            schedules: 100, seed: 9, frame: .milliseconds(100), reporter: reporter, location: Self.location
        ) { s in
            let shown = Box("")
            s.expect(emitting: String.self) { emit in
                // Started one after the other: their jobs never tie, their wake-ups do.
                let slow = Task {
                    try? await Task.sleep(for: .milliseconds(200))
                    shown.value = "fresh"
                }
                try await Task.sleep(for: .milliseconds(100))
                let cached = Task {
                    try? await Task.sleep(for: .milliseconds(100))
                    shown.value = "cached"
                }
                await slow.value
                await cached.value
                emit(shown.value)
            }.toBe("--(x|)", values: ["x": "cached"])
        }
        let failure = try #require(outcome.failure)
        #expect(failure.deviations.first?.description == "2 sleepers due at this instant woke together", "\(failure.deviations)")
    }

    @available(macOS 15.0, iOS 18.0, watchOS 11.0, tvOS 18.0, visionOS 2.0, *)
    @Test("code whose result depends only on time passes every schedule")
    func noFalseAlarms() {
        let reporter = MarbleFailure.Collector()
        let outcome = ScheduleExploration.check(
            schedules: 200, seed: 3, frame: .milliseconds(100), reporter: reporter, location: Self.location
        ) { s in
            let results = PublishSubject<String>()
            let expectation = s.expect(results)
            for (delay, name) in [(300, "c"), (100, "a"), (200, "b")] {
                Task {
                    try await Task.sleep(for: .milliseconds(delay))
                    results.onNext(name)
                }
            }
            let input = s.hot("----x-y|").values
            Task {
                for try await value in input { results.onNext(value) }
            }
            expectation.toBe("-abcx-y")
        }
        #expect(outcome.failure == nil, "\(reporter.failures.map(\.message))")
    }

    @available(macOS 15.0, iOS 18.0, watchOS 11.0, tvOS 18.0, visionOS 2.0, *)
    @Test("a body that fails in FIFO order fails at the first schedule, with no deviation")
    func fifoFirst() throws {
        let reporter = MarbleFailure.Collector()
        let outcome = ScheduleExploration.check(
            schedules: 10, seed: 5, frame: .milliseconds(100), reporter: reporter, location: Self.location
        ) { s in
            s.expect(s.cold("-a|")).toBe("-b|")
        }
        let failure = try #require(outcome.failure)
        #expect(failure.scheduleNumber == 1 && failure.deviations.isEmpty)
        #expect(reporter.failures.first?.message.contains("(none: the FIFO schedule fails)") == true)
    }

    /// Two tasks started together write `shown`; the result is their count, or the last writer.
    @available(macOS 15.0, iOS 18.0, watchOS 11.0, tvOS 18.0, visionOS 2.0, *)
    static func twoWriters(lastWriterWins: Bool) -> (TestScheduler) -> Void {
        { s in
            let shown = Box("")
            let count = Box(0)
            let first = Task {
                shown.value = "a"
                count.value += 1
            }
            let second = Task {
                shown.value = "b"
                count.value += 1
            }
            s.expect(emitting: String.self) { emit in
                await first.value
                await second.value
                emit(lastWriterWins ? shown.value : "\(count.value)")
            }.toBe("(x|)", values: ["x": lastWriterWins ? "b" : "2"])
        }
    }

    @available(macOS 15.0, iOS 18.0, watchOS 11.0, tvOS 18.0, visionOS 2.0, *)
    @Test("the exhaustive mode runs every distinct order of a small body, and finds the race among them")
    func exhaustive() throws {
        let counting = ScheduleExploration.check(
            schedules: 10_000, exhaustive: true, reporter: MarbleFailure.Collector(), location: Self.location,
            Self.twoWriters(lastWriterWins: false))
        #expect(counting.failure == nil && counting.exhausted)
        #expect(counting.schedules > 2 && counting.schedules < 50, "\(counting.schedules)")
        let lastWriter = ScheduleExploration.check(
            schedules: 10_000, exhaustive: true, reporter: MarbleFailure.Collector(), location: Self.location,
            Self.twoWriters(lastWriterWins: true))
        let failure = try #require(lastWriter.failure)
        #expect(failure.scheduleNumber > 1 && failure.scheduleNumber <= counting.schedules)
        let bounded = ScheduleExploration.check(
            schedules: 2, exhaustive: true, reporter: MarbleFailure.Collector(), location: Self.location,
            Self.twoWriters(lastWriterWins: false))
        #expect(bounded.schedules == 2 && !bounded.exhausted)
    }

    @available(macOS 15.0, iOS 18.0, watchOS 11.0, tvOS 18.0, visionOS 2.0, *)
    @Test("depth-first successor: the last decision with an option left takes it")
    func successor() {
        #expect(ScheduleExploration.successor(of: [], radices: []) == nil)
        #expect(ScheduleExploration.successor(of: [0, 0], radices: [2, 3]) == [0, 1])
        #expect(ScheduleExploration.successor(of: [0, 2], radices: [2, 3]) == [1])
        #expect(ScheduleExploration.successor(of: [1, 2], radices: [2, 3]) == nil)
    }

    @available(macOS 15.0, iOS 18.0, watchOS 11.0, tvOS 18.0, visionOS 2.0, *)
    @Test("PCT schedules find the stale response too, and their first schedule is FIFO")
    func pct() throws {
        let outcome = ScheduleExploration.check(
            schedules: 100, strategy: .pct(depth: 2, horizon: 10), seed: 4, frame: .milliseconds(100), reporter: MarbleFailure.Collector(),
            location: Self.location, Self.twoSearches(fixed: false))
        #expect(try #require(outcome.failure).scheduleNumber > 1)
    }

    @available(macOS 15.0, iOS 18.0, watchOS 11.0, tvOS 18.0, visionOS 2.0, *)
    @Test("a deviation names a task by its Task(name:) when it has one")
    func namesTasks() throws {
        guard #available(macOS 26.0, iOS 26.0, watchOS 26.0, tvOS 26.0, visionOS 26.0, *) else { return }
        let reporter = MarbleFailure.Collector()
        let outcome = ScheduleExploration.check(
            schedules: 100, seed: 42, frame: .milliseconds(100), reporter: reporter, location: Self.location
        ) { s in
            let shown = Box("")
            let first = Task(name: "search sw") {
                try? await Task.sleep(for: .milliseconds(100))
                shown.value = "sw"
            }
            let second = Task(name: "search swift") {
                try? await Task.sleep(for: .milliseconds(100))
                shown.value = "swift"
            }
            s.expect(emitting: String.self) { emit in
                await first.value
                await second.value
                emit(shown.value)
            }.toBe("-(x|)", values: ["x": "swift"])
        }
        let failure = try #require(outcome.failure)
        #expect(
            failure.deviations.contains { $0.description.contains("task \"search swift\"") }, "\(failure.deviations.map(\.description))")
    }

    @available(macOS 15.0, iOS 18.0, watchOS 11.0, tvOS 18.0, visionOS 2.0, *)
    @Test("the listener hears only the smallest failing schedule's expectations (MarblesTesting passes the MARBLES_DIAGRAM_DIR writer)")
    func listenerHearsTheFailingSchedule() {
        var checked: [Bool] = []
        let listener = TestScheduler.Listener(expectationChecked: { checked.append($0.passed) })
        ScheduleExploration.check(
            schedules: 100, seed: 42, frame: .milliseconds(100), reporter: MarbleFailure.Collector(), location: Self.location,
            listener: listener, Self.twoSearches(fixed: false))
        #expect(checked == [false])
    }

    @available(macOS 15.0, iOS 18.0, watchOS 11.0, tvOS 18.0, visionOS 2.0, *)
    @Test("exploreSchedules reports a found race to the running test")
    func reportsToTheRunningTest() {
        withKnownIssue {
            exploreSchedules(100, seed: 11, frame: .milliseconds(100), Self.twoSearches(fixed: false))
        } matching: { issue in
            issue.comments.contains { $0.rawValue.contains("deviation(s) from FIFO") }
        }
    }
}
