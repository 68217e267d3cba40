#if Tools
    import ArgumentParser

    /// Reads arguments the way users type them, before ArgumentParser sees them:
    /// - `parse` takes everything that is not one of its options as the diagram, placed after a
    ///   `--` (so `marblegen parse ---a-|` and `marblegen parse -- ---a-|` both mean `---a-|`);
    /// - an option followed by a negative number takes it as its value (`--scale -1`, which
    ///   `validate()` then refuses with a reason, rather than "missing value");
    /// - an option given twice is an error, not "the last one wins" (except `draw --input`, which
    ///   repeats on purpose); the value of `draw`'s `--input` and `--operator` is taken as is, even
    ///   when it starts with dashes (`--input --a--b|`).
    enum CommandLineArguments {
        static let parseOptions: Set<String> = ["--kind", "-h", "--help"]
        static let repeatable: Set<String> = ["--help", "--format", "--input"]
        static let verbatimValue: Set<String> = ["--input", "--operator"]

        static func normalized(_ arguments: [String]) throws -> [String] {
            var result: [String] = []
            var index = 0
            var seen: Set<String> = []
            while index < arguments.count {
                let argument = arguments[index]
                if argument == "parse", result.allSatisfy({ $0.hasPrefix("-") }) {
                    return try (result + ["parse"] + parseArguments(Array(arguments[(index + 1)...])))
                }
                if argument.hasPrefix("--"), argument.count > 2 {
                    let name = String(argument.prefix { $0 != "=" })
                    if !seen.insert(name).inserted && !repeatable.contains(name) {
                        throw ValidationError("option \(name) given twice")
                    }
                    if verbatimValue.contains(argument), index + 1 < arguments.count {
                        result.append(argument + "=" + arguments[index + 1])
                        index += 2
                        continue
                    }
                    if !argument.contains("="), index + 1 < arguments.count, arguments[index + 1].first == "-",
                        Double(arguments[index + 1]) != nil
                    {
                        result.append(argument + "=" + arguments[index + 1])
                        index += 2
                        continue
                    }
                }
                result.append(argument)
                index += 1
            }
            return result
        }

        /// `parse`'s own options first, then `--` and the diagram words.
        static func parseArguments(_ arguments: [String]) throws -> [String] {
            var options: [String] = []
            var diagram: [String] = []
            var index = 0
            while index < arguments.count {
                let argument = arguments[index]
                if diagram.isEmpty && argument == "--" {
                    diagram.append(contentsOf: arguments[(index + 1)...])
                    break
                }
                let name = String(argument.prefix { $0 != "=" })
                if diagram.isEmpty, parseOptions.contains(name) {
                    if options.contains(where: { $0.hasPrefix(name) }) && name == "--kind" {
                        throw ValidationError("option --kind given twice")
                    }
                    options.append(argument)
                    if name == "--kind", !argument.contains("="), index + 1 < arguments.count {
                        options.append(arguments[index + 1])
                        index += 1
                    }
                } else {
                    diagram.append(argument)
                }
                index += 1
            }
            return options + ["--"] + diagram
        }
    }
#endif
