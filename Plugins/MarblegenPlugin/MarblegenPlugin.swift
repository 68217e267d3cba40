import Foundation
import PackagePlugin

/// `swift package marblegen <command> …`: runs the marblegen CLI, built from this package, in
/// the package's folder, so a user renders their own specs without installing the tool (the
/// machine still needs Cairo and Pango, which marblegen draws through).
///
///     swift package --allow-writing-to-package-directory marblegen render Diagrams
///     swift package marblegen verify Diagrams
@main
struct MarblegenPlugin: CommandPlugin {
    func performCommand(context: PluginContext, arguments: [String]) async throws {
        let tool = try context.tool(named: "marblegen")
        let process = Process()
        process.executableURL = tool.url
        process.arguments = arguments
        process.currentDirectoryURL = context.package.directoryURL
        try process.run()
        process.waitUntilExit()
        if process.terminationStatus != 0 {
            Diagnostics.error("marblegen \(arguments.joined(separator: " ")) exited with status \(process.terminationStatus)")
            throw MarblegenFailed(status: process.terminationStatus)
        }
    }
}

struct MarblegenFailed: Error, CustomStringConvertible {
    var status: Int32
    var description: String { "marblegen exited with status \(status)" }
}
