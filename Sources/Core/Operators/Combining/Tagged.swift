/// Tags values of two or three differently-typed sources so that the homogeneous
/// combinators can carry them.
enum Tagged<A, B, C> {
    case a(A)
    case b(B)
    case c(C)
    var a: A? {
        if case .a(let v) = self { return v }
        return nil
    }
    var b: B? {
        if case .b(let v) = self { return v }
        return nil
    }
    var c: C? {
        if case .c(let v) = self { return v }
        return nil
    }
}
