import Foundation
import MarblesTesting
import Testing

// Issue 68: a test body on virtual time that waits forever and ignores its cancellation ends its
// test process, failed, with its message, instead of hanging the run until a CI time limit
// kills it (and its log).

/// Run only in a process of its own, by `aBodyThatIgnoresItsCancellationEndsTheProcessWithTheMessage`.
@Suite(.enabled(if: ProcessInfo.processInfo.environment["MARBLES_HUNG_BODY_DEMO"] == "1"))
struct HungBodyDemo {
    @Test(.virtualTime) func aBodyThatWaitsForever() async {
        await withCheckedContinuation { NeverResumed.keep($0) }
    }
}

@Suite("A test body that never returns")
struct HungBodyTests {
    #if os(Linux)
        @Test func aBodyThatIgnoresItsCancellationEndsTheProcessWithTheMessage() throws {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: CommandLine.arguments[0])
            process.arguments = ["--testing-library", "swift-testing", "--filter", "HungBodyDemo"]
            process.environment = ProcessInfo.processInfo.environment.merging(["MARBLES_HUNG_BODY_DEMO": "1"]) { $1 }
            let output = Pipe()
            process.standardOutput = output
            process.standardError = output
            let started = Date()
            try process.run()
            // The budget CI would give it: 30 s, then the process is killed.
            let deadline = DispatchTime.now() + .seconds(30)
            while process.isRunning && DispatchTime.now() < deadline { usleep(20_000) }
            let hung = process.isRunning
            if hung { process.terminate() }
            let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            process.waitUntilExit()
            #expect(!hung, "the process was still running after 30 s")
            #expect(process.terminationStatus == 1)
            #expect(text.contains("the test body was still suspended at frame 0 when nothing was left to run on virtual time"))
            #expect(text.contains("this test process ends here, with exit code 1"))
            #expect(text.contains("HungBodyTests.swift:12:"))
            #expect(Date().timeIntervalSince(started) < 10)
        }
    #endif
}
