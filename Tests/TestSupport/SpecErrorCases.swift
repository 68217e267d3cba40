/// Malformed specs and where their error must point; shared by the spec and CLI tests.
public enum SpecErrorCases {
    public struct Case: Sendable, CustomStringConvertible {
        public var spec: String
        public var line: Int
        public var column: Int
        public var message: String
        public var description: String { message }
    }

    public static let cases: [Case] = [
        Case(spec: "input: --a--|\noperator: mapp(x)", line: 2, column: 11, message: "unknown operator 'mapp' (did you mean 'map'?)"),
        Case(spec: "input: --a--|\noperator: map(y * 2)", line: 2, column: 15, message: "unknown name 'y'"),
        Case(spec: "input: --a--|\noperator: map(x * )", line: 2, column: 19, message: "expected an expression"),
        Case(spec: "input: --a--|\noperator: map(x", line: 2, column: 16, message: "expected ')'"),
        Case(spec: "input: --a--|\noperator: take(-1)", line: 2, column: 16, message: "count must be a whole number ≥ 0"),
        Case(spec: "input: --a--|\noperator: take(\"two\")", line: 2, column: 16, message: "count must be a whole number"),
        Case(spec: "input: --a--|\noperator: take", line: 2, column: 11, message: "'take' needs count"),
        Case(spec: "input: --a--|\noperator: take(1, 2)", line: 2, column: 19, message: "too many arguments"),
        Case(spec: "input: --a--|\noperator: throttle(2, fast: true)", line: 2, column: 23, message: "no argument labelled 'fast'"),
        Case(spec: "input: --a--|\noperator: throttle(2, latest: 3)", line: 2, column: 23, message: "latest must be true or false"),

        Case(spec: "input: --a--|\noperator: zip", line: 2, column: 11, message: "'zip' takes 2 to 8 inputs, the spec has 1"),
        Case(spec: "input: --(a--|", line: 1, column: 10, message: "unclosed group"),
        Case(
            spec: "input: --a--|\nexpected: --a-!", line: 2, column: 15,
            message: "'!' (unsubscription) belongs in subscription diagrams only"),
        Case(spec: "input: --a--|\nexpected: --a|b", line: 2, column: 15, message: "event after '|' or '#'"),
        Case(spec: "cold x: --^a|", line: 1, column: 11, message: "'^' marks frame 0"),
        Case(spec: "input: --a--|\ninput: --b--|", line: 2, column: 1, message: "every input after the first needs a name"),
        Case(spec: "input a: --a--|\ninput a: --b--|", line: 2, column: 7, message: "'a' is already defined on line 1"),
        Case(spec: "input: --a--|\ncolour: red", line: 2, column: 1, message: "unknown key 'colour'"),
        Case(spec: "input: --a--|\njust some words", line: 2, column: 1, message: "expected 'key: value'"),
        Case(spec: "input: --a--|\nvalues: a 1", line: 2, column: 11, message: "expected '=' after the key 'a'"),
        Case(spec: "input: --a--|\nvalues: a = \"open", line: 2, column: 13, message: "unterminated string"),
        Case(spec: "input: --a--|\nstyle: frame = 500", line: 2, column: 8, message: "frame is a width in pixels from 8 to 120"),
        Case(spec: "input: --a--|\nstyle: colour = red", line: 2, column: 8, message: "unknown style"),
        Case(spec: "title: a\ntitle: b\ninput: -a|", line: 2, column: 1, message: "a second 'title' line"),
        Case(spec: "symbol: A/a()\nsymbol: B/b()\ninput: -a|", line: 2, column: 1, message: "a second 'symbol' line"),
        Case(
            spec: "input: -a|\nsymbol: ObservableType/map(_:) extra", line: 2, column: 9,
            message: "symbol is one documentation path without spaces"),
        Case(spec: "input: --a--|\noperator: map(x) extra", line: 2, column: 18, message: "unexpected text after the operator"),
        Case(spec: "inner: --a|", line: 1, column: 1, message: "an inner observable needs a name"),
        Case(spec: "// nothing but a comment", line: 1, column: 1, message: "a spec needs at least one 'input' line"),
        Case(spec: "input: -'abc|", line: 1, column: 9, message: "unterminated quoted value"),
        Case(spec: "status: maybe\ninput: -a|", line: 1, column: 9, message: "status is 'passed' or 'failed'"),
        Case(spec: "input: 99999999999999999999999ms a|", line: 1, column: 8, message: "too long a time progression"),
        Case(spec: "input: 100000m a|\noperator: map(x)", line: 1, column: 8, message: "marblegen draws at most 3600000"),
        Case(
            spec: "input: -a-b|\nvalues: a = 1, a = 2", line: 2, column: 16,
            message: "the value key 'a' is already given earlier on this line"),
        Case(
            spec: "input: -a-b|\nvalues: a = 1\nvalues: a = 2", line: 3, column: 9, message: "the value key 'a' is already given on line 2"),
        Case(spec: "input: -a-b|\noperator: flatMap", line: 2, column: 11, message: "'a' is a value, not an inner observable"),
        Case(spec: "input: -1|\ninner 2: -x|\noperator: flatMap", line: 3, column: 11, message: "'1' is a value, not an inner observable"),
        Case(spec: "input 1b: -a|", line: 1, column: 7, message: "'1b' is not an input name: start with a letter"),
        Case(spec: "operator: interval(0)", line: 1, column: 11, message: "interval's period must be at least 1 frame"),
        Case(spec: "input: #\noperator: retry(1000000000)", line: 2, column: 11, message: "does not settle in virtual time"),
        Case(spec: "operator: generate(0, true, x + 1)", line: 1, column: 11, message: "generate looped synchronously"),
        // Several subscribers and connections.
        Case(spec: "input: -a|\noperator: share\nsubscriber A: ---", line: 3, column: 15, message: "mark where it subscribes with '^'"),
        Case(spec: "input: -a|\noperator: share\nsubscriber A: -^-^", line: 3, column: 18, message: "second"),
        Case(spec: "input: -a|\noperator: share\nsubscriber A: -^-#", line: 3, column: 18, message: "'#'"),
        Case(spec: "input: -a|\noperator: share\nsubscriber: ^", line: 3, column: 1, message: "a subscriber needs a name"),
        Case(spec: "input: -a|\noperator: share\nsubscriber 1x: ^", line: 3, column: 12, message: "'1x' is not a subscriber name"),
        Case(
            spec: "input: -a|\noperator: share\nsubscriber source: ^", line: 3, column: 12, message: "'source' is already defined on line 1"
        ),
        Case(
            spec: "input: -a|\noperator: share\nsubscriber A: ^\nexpected B: -a|", line: 4, column: 1,
            message: "'expected B' names no subscriber (the subscribers are 'A')"),
        Case(spec: "input: -a|\nsubscriber A: ^", line: 2, column: 1, message: "need an 'operator' line"),
        Case(spec: "input: -a|\noperator: publish\nsubscriber A: ^", line: 2, column: 11, message: "add 'connect: ^'"),
        Case(spec: "input: -a|\noperator: share\nconnect: ^", line: 3, column: 1, message: "'share' does not connect"),
        Case(spec: "input: -a|\noperator: publish\nconnect: --", line: 3, column: 10, message: "mark where it connects with '^'"),
        Case(
            spec: "input: -a|\noperator: share\nsubscriber A: ^\nexpected: -a|\nexpected A: -a|", line: 4, column: 1,
            message: "both describe the first subscriber"),
        Case(
            spec: "input: -a|\noperator: share\nsubscriber A: ^\nexpected A: -a|\nexpected A: -a|", line: 5, column: 1,
            message: "a second 'expected A'"),
        Case(spec: "input: -a-x|\nvalues: x = 1\noperator: dematerialize", line: 3, column: 11, message: "not an event"),
        Case(
            spec: "input: -a|\noperator: map(x)\nsubscribed source: ^-!", line: 3, column: 12,
            message: "'subscribed' lines belong to a spec with an 'actual' line"),
        Case(
            spec: "input a: -a|\nactual: -a|\nsubscribed b: ^-!", line: 3, column: 12,
            message: "'subscribed b' names no input or inner (they are 'a')"),
        Case(spec: "input a: -a|\nactual: -a|\nsubscribed a: --", line: 3, column: 15, message: "mark where it subscribes with '^'"),
        Case(
            spec: "input a: -a|\ninput b: -b|\nexpected subscribed a: ^!\nexpected subscribed b: ^-!", line: 4, column: 21,
            message: "'expected subscribed' lines describe one input; line 3 names 'a'"),
        Case(spec: "input a: -a|\nexpected subscribed: ^!", line: 2, column: 1, message: "name the input or inner it describes"),
    ]
}
