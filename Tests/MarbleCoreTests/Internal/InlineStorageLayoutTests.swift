import MarbleCore
import Testing

/// State kept inline at a fixed place (the unsafe ledger's "inline storage") is where it is read
/// from. The inits assert it in debug builds; `make test-release-layout` makes the same check in
/// a release build (`MarblesStress --check-layout`).
@Suite("Inline storage layout")
struct InlineStorageLayoutTests {
    @Test("every class that keeps state inline keeps it as its first stored property")
    func layouts() {
        let layouts = inlineStorageLayouts()
        #expect(layouts.count == 6)
        for layout in layouts {
            #expect(layout.holds, "\(layout.type)'s inline state moved: firstStoredProperty would read another field")
        }
    }
}
