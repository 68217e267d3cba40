// Generated from Sources/MarblesTesting/MarblesTesting.docc/AsyncTestsOnVirtualTime.md (the block at line 14) by scripts/code-blocks.py: edit the
// document, then run `make code-blocks`.
// swift-format-ignore-file
import MarblesTesting
import Testing

actor ExpiringCache {
    private var entries: [String: (value: Int, stored: ContinuousClock.Instant)] = [:]
    func store(_ value: Int, for key: String) { entries[key] = (value, .now) }
    func value(for key: String, maxAge: Duration) -> Int? {
        guard let entry = entries[key], entry.stored.duration(to: .now) <= maxAge else { return nil }
        return entry.value
    }
}

@Test(.virtualTime, .noPortabilityWarning) func entriesExpireAfterTheirMaxAge() async throws {
    let cache = ExpiringCache()
    await cache.store(42, for: "answer")
    try await Task.sleep(for: .seconds(59))
    #expect(await cache.value(for: "answer", maxAge: .seconds(60)) == 42)
    try await Task.sleep(for: .seconds(2))
    #expect(await cache.value(for: "answer", maxAge: .seconds(60)) == nil)
}
