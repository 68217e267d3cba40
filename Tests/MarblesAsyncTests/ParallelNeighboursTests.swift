import Foundation
import MarblesTesting
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif
#if canImport(Glibc)
    import Glibc
#endif

// Issue 68: a test on virtual time that waits for real (here, a request to a server that takes
// 1 s) never holds a thread of Swift's cooperative pool, so the tests beside it run as if it were
// not there. `make test` runs this suite with `--parallel` through scripts/parallel-neighbours.sh,
// which reads the durations Swift Testing reports: the plain tests' median stays under 20 ms and
// the suite under 2 s.
@Suite(
    "Parallel neighbours: 8 tests waiting 1 s for real beside 100 plain ones", .noPortabilityWarning,
    .enabled(if: ProcessInfo.processInfo.environment["MARBLES_NEIGHBOURS"] == "1"))
struct ParallelNeighbours {
    static let server = SlowLoopbackServer(delay: .seconds(1))

    @Test(.virtualTime, arguments: 0..<8) func aRequestToAServerThatTakesOneSecond(_ index: Int) async throws {
        let url = URL(string: "http://127.0.0.1:\(Self.server.port)/\(index)")!
        let (data, _) = try await URLSession(configuration: .ephemeral).data(from: url)
        #expect(String(decoding: data, as: UTF8.self) == "ok")
    }

    @Test(arguments: 0..<100) func aPlainMillisecondTest(_ index: Int) {
        usleep(1000)
        #expect(index >= 0)
    }
}
