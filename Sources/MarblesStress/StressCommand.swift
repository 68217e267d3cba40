#if Tools
    import ArgumentParser
    import Dispatch
    import Foundation
    import MarbleCore
    import Atomics

    /// Runs every thread-crossing operator from several threads at once for a while, checking the
    /// Rx grammar of every stream with atomics; exits 1 on any stall or violation.
    @main
    struct StressCommand: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "marbles-stress",
            abstract: "Stress the thread-crossing operators: threads × operators × dispatch schedulers, grammar checked by atomics.")

        @Option(help: "How long to run, in seconds.")
        var seconds: Double = 10

        @Option(help: "Threads subscribing at once.")
        var threads: Int = 8

        @Option(help: "How long one stream may take to end before it counts as a stall, in seconds.")
        var stallAfter: Double = 20

        @Option(help: "Run only scenarios whose name contains this text.")
        var only: String?

        @Flag(help: "Check instead that state kept inline is where it is read from, in this build (exit 1 if not).")
        var checkLayout = false

        func validate() throws {
            guard seconds > 0 else { throw ValidationError("--seconds must be positive") }
            guard (1...256).contains(threads) else { throw ValidationError("--threads is from 1 to 256") }
        }

        func run() throws {
            if checkLayout { return try Self.checkInlineLayouts() }
            let scenarios = Scenario.all.filter { only.map($0.name.contains) ?? true }
            guard !scenarios.isEmpty else { throw ValidationError("no scenario matches '\(only ?? "")'") }
            let tallies = scenarios.map { _ in Tally() }
            let queues = Queues()
            let deadline = DispatchTime.now().uptimeNanoseconds + UInt64(seconds * 1e9)
            let stallNanos = Int(stallAfter * 1e9)
            print("marbles-stress: \(scenarios.count) scenarios, \(threads) threads, \(seconds) s")
            let group = DispatchGroup()
            for thread in 0..<threads {
                let worker = Thread {
                    var index = thread
                    while DispatchTime.now().uptimeNanoseconds < deadline {
                        let i = index % scenarios.count
                        Self.runOnce(scenarios[i], tally: tallies[i], queues: queues, stallNanos: stallNanos)
                        index += 1
                    }
                    group.leave()
                }
                group.enter()
                worker.start()
            }
            group.wait()
            try report(scenarios, tallies)
        }

        /// The debug builds' init assertions, made in the build at hand: `make test-release-layout`
        /// runs it on a release build of MarbleCore alone.
        static func checkInlineLayouts() throws {
            let layouts = inlineStorageLayouts()
            for layout in layouts where !layout.holds {
                print("\(layout.type)'s inline state moved: firstStoredProperty would read another field")
            }
            let moved = layouts.filter { !$0.holds }.count
            print("marbles-stress: \(layouts.count - moved) of \(layouts.count) inline layouts hold")
            if moved > 0 { throw ExitCode(1) }
        }

        static func runOnce(_ scenario: Scenario, tally: Tally, queues: Queues, stallNanos: Int) {
            let observer = GrammarObserver(tally: tally, expected: scenario.outcome)
            let subscription = scenario.build(queues).subscribe(observer)
            if observer.ended.wait(timeout: .now() + .nanoseconds(stallNanos)) == .timedOut {
                tally.stalls.wrappingIncrement(by: 1, ordering: .relaxed)
            }
            subscription.dispose()
            tally.runs.wrappingIncrement(by: 1, ordering: .relaxed)
        }

        func report(_ scenarios: [Scenario], _ tallies: [Tally]) throws {
            let width = scenarios.map(\.name.count).max() ?? 10
            print(
                "scenario".padding(toLength: width, withPad: " ", startingAt: 0)
                    + "      runs     events  concurrent  after-end  wrong  stalls"
            )
            for (scenario, t) in zip(scenarios, tallies) {
                let cells = [
                    t.runs.load(ordering: .relaxed), t.events.load(ordering: .relaxed), t.concurrent.load(ordering: .relaxed),
                    t.afterTerminal.load(ordering: .relaxed), t.wrongOutcome.load(ordering: .relaxed), t.stalls.load(ordering: .relaxed),
                ]
                let widths = [10, 11, 12, 11, 7, 8]
                let row = zip(cells, widths).map { cell, w in
                    String(String(cell).reversed()).padding(toLength: w, withPad: " ", startingAt: 0)
                }
                .map { String($0.reversed()) }.joined()
                print(scenario.name.padding(toLength: width, withPad: " ", startingAt: 0) + row)
            }
            let violations = tallies.map(\.violations).reduce(0, +)
            let events = tallies.map { $0.events.load(ordering: .relaxed) }.reduce(0, +)
            print("\(events) events checked, \(violations) violation\(violations == 1 ? "" : "s")")
            if violations > 0 { throw ExitCode(1) }
        }
    }
#else
    import Foundation

    /// Built without the Tools trait: says how to get the real program.
    @main
    enum StressCommand {
        static func main() {
            let message = """
                MarblesStress is built with the package's Tools trait (swift-argument-parser and FlyingFox stay unfetched \
                without it): `swift build --traits Tools --product MarblesStress` here, or \
                `.package(url: …, from: …, traits: ["Tools"])` in a package that depends on Marbles

                """
            FileHandle.standardError.write(Data(message.utf8))
            exit(2)
        }
    }
#endif
