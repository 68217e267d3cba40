import Foundation

// The side-by-side benchmarks: `swift run -c release MarblesBenchmarks [--quick] [--reps N]
// [--only chain,subject,scheduler,parser,printer,small-test,marble-test,render,combine,async,clock,foreign,interposed,explore,shrink,failure]`;
// marble-test's parts run alone as cold-test, hot-test, higher-order and timing-test; task-sleep, async-test
// (the short async marble test alone), test-phases and small-test-loop (the 10-event test alone) are for profiling.
// `make bench` runs all of them; `make bench-debug` the scheduler and test sections in a debug build.

#if DEBUG
    say("debug build: figures are for the debug column only")
#endif
let sections: [(String, () -> Void)] = [
    ("chain", chainBenchmarks), ("subject", subjectBenchmarks), ("scheduler", schedulerBenchmarks),
    ("parser", parserBenchmarks), ("printer", printerBenchmarks), ("small-test", smallTestBenchmarks),
    ("marble-test", marbleTestBenchmarks),
    ("render", renderBenchmarks), ("combine", combineBenchmarks), ("async", asyncDriverBenchmarks), ("clock", clockReadBenchmarks),
    ("foreign", foreignWorkBenchmarks), ("interposed", interposedCallBenchmarks), ("explore", explorationBenchmarks),
    ("shrink", shrinkingBenchmarks), ("failure", failureDiagramBenchmarks),
]
// Parts of marble-test, run only when named.
let parts: [(String, () -> Void)] = [
    ("cold-test", { coldTestBenchmark(events: 1_000) }), ("hot-test", hotTestBenchmark), ("higher-order", higherOrderBenchmarks),
    ("timing-test", timingTestBenchmark), ("task-sleep", taskSleepProfile), ("async-test", asyncTestProfile),
    ("test-phases", testPhasesProfile), ("small-test-loop", smallTestProfile), ("empty-run-loop", emptyRunProfile),
    ("latest-loop", flatMapLatestProfile), ("delay-loop", delayProfile),
]
if let only = options.only, let unknown = only.first(where: { name in !(sections + parts).contains { $0.0 == name } }) {
    say("unknown section '\(unknown)'; sections: \((sections + parts).map(\.0).joined(separator: ", "))")
    exit(2)
}
for (name, run) in sections where options.runs(name) { run() }
for (name, run) in parts where options.only?.contains(name) == true { run() }
