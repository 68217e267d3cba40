import Foundation
import PackagePlugin

/// `swift package marblegen-verify <specs> …`: `marblegen verify`, which only reads, as a plugin
/// that asks for no permission (SwiftPM asks for the `marblegen` plugin's write permission on
/// every command, verify included).
///
///     swift package marblegen-verify Diagrams
@main
struct MarblegenVerifyPlugin: CommandPlugin {
    func performCommand(context: PluginContext, arguments: [String]) async throws {
        let process = Process()
        process.executableURL = try context.tool(named: "marblegen").url
        process.arguments = ["verify"] + arguments
        process.currentDirectoryURL = context.package.directoryURL
        try process.run()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            Diagnostics.error("marblegen verify \(arguments.joined(separator: " ")) exited with status \(process.terminationStatus)")
            throw VerifyFailed()
        }
    }
}

struct VerifyFailed: Error, CustomStringConvertible {
    var description: String { "marblegen verify failed" }
}
