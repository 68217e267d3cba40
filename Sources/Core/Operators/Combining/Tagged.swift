/// Tags values of two or three differently-typed sources so that the homogeneous
/// combinators can carry them.
@usableFromInline
enum Tagged<A, B, C> {
    case a(A)
    case b(B)
    case c(C)
    @inlinable var a: A? {
        if case .a(let v) = self { return v }
        return nil
    }
    @inlinable var b: B? {
        if case .b(let v) = self { return v }
        return nil
    }
    @inlinable var c: C? {
        if case .c(let v) = self { return v }
        return nil
    }
}
