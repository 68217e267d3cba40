internal import CClockInterposer

/// The libc interposer that makes the system clocks virtual on a driving thread (Linux): linked
/// into a test executable through this module, and only there (a program that links `Marbles`
/// alone, and the command-line tools, keep libc's `clock_gettime`).
package enum ClockInterposer {
    /// Whether this executable's `clock_gettime` is the interposer's and it found the Swift
    /// runtime's library (Linux); false elsewhere.
    package static var linked: Bool { marbles_clock_interposer_linked() }

    /// What the interposed `clock_gettime` calls for every read it does not answer: the symbol
    /// name, or the library's path.
    package static var next: String { String(cString: marbles_clock_gettime_next()) }
}
