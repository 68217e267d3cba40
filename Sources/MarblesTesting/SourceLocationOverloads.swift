public import Testing

// Entry points that take a Swift Testing `SourceLocation`, so a helper declared as
// `func check(…, sourceLocation: SourceLocation = #_sourceLocation)` passes its caller's
// location straight through.

extension MarbleExpectation {
    /// `toBe` reported at `sourceLocation`.
    public func toBe<Value>(
        _ diagram: String, values: [String: Value], error: any Error = MarbleError(), areEqual: ((Value, Value) -> Bool)? = nil,
        sourceLocation: SourceLocation
    ) {
        toBe(diagram, values: values, error: error, areEqual: areEqual, at: MarbleSourceLocation(sourceLocation))
    }

    /// `toBe` of `Equatable` values reported at `sourceLocation` (a recording of `Value`s is
    /// compared without erasing it).
    @inlinable
    public func toBe<Value: Equatable>(
        _ diagram: String, values: [String: Value], error: any Error = MarbleError(), areEqual: ((Value, Value) -> Bool)? = nil,
        sourceLocation: SourceLocation
    ) {
        toBe(diagram, values: values, error: error, areEqual: areEqual, at: MarbleSourceLocation(sourceLocation))
    }

    /// `toBe` of a diagram whose values are its characters, reported at `sourceLocation`.
    public func toBe(_ diagram: String, error: any Error = MarbleError(), sourceLocation: SourceLocation) {
        toBe(diagram, values: [String: String](), error: error, areEqual: nil, at: MarbleSourceLocation(sourceLocation))
    }

    /// `toEmit` reported at `sourceLocation`.
    public func toEmit<Value>(_ values: [Value], completing: Bool = true, sourceLocation: SourceLocation) {
        toEmit(values, completing: completing, at: MarbleSourceLocation(sourceLocation))
    }
}

extension SubscriptionExpectation {
    /// `toBe` reported at `sourceLocation`.
    public func toBe(_ diagram: String, sourceLocation: SourceLocation) {
        toBe([diagram], at: MarbleSourceLocation(sourceLocation))
    }
}

extension TestScheduler {
    /// `expect` whose subscription-diagram errors are reported at `sourceLocation`.
    public func expect<O: ObservableType>(_ observable: O, unsubscribe: String? = nil, sourceLocation: SourceLocation) -> MarbleExpectation
    {
        expect(observable, unsubscribe: unsubscribe, at: MarbleSourceLocation(sourceLocation))
    }

    /// `flush` whose step-limit failure is reported at `sourceLocation`.
    public func flush(sourceLocation: SourceLocation) {
        flush(at: MarbleSourceLocation(sourceLocation))
    }
}
