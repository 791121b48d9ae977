import Foundation
import Testing

/// The rules of the architecture that a reader of one file cannot see broken: checked over the sources.
@Suite("Architecture")
struct ArchitectureTests {
    private static let features = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("../../Sources/StorefrontCore/Features").standardizedFileURL

    /// Each feature's files: a folder is one feature (Checkout, Forms, SignIn), a file at the top is one.
    private static func featureFiles() throws -> [(feature: String, file: URL)] {
        let entries = try FileManager.default.contentsOfDirectory(at: features, includingPropertiesForKeys: [.isDirectoryKey])
        var files: [(String, URL)] = []
        for entry in entries.sorted(by: { $0.path < $1.path }) {
            if (try entry.resourceValues(forKeys: [.isDirectoryKey])).isDirectory == true {
                let inside = try FileManager.default.contentsOfDirectory(at: entry, includingPropertiesForKeys: nil)
                files += inside.filter { $0.pathExtension == "swift" }.map { (entry.lastPathComponent, $0) }
            } else if entry.pathExtension == "swift" {
                files.append((entry.deletingPathExtension().lastPathComponent, entry))
            }
        }
        return files
    }

    /// The `…Feature` types a feature's files declare or extend.
    private static func ownTypes(of feature: String, in files: [(feature: String, file: URL)]) throws -> Set<String> {
        var own: Set<String> = []
        for (owner, file) in files where owner == feature {
            let text = try String(contentsOf: file, encoding: .utf8)
            for match in text.matches(of: /(?:enum|extension) (\w+Feature)\b/) { own.insert(String(match.output.1)) }
        }
        return own
    }

    @Test func noFeatureCallsAnotherFeaturesReducer() throws {
        let files = try Self.featureFiles()
        #expect(files.count > 10, "the feature files were found at \(Self.features.path)")
        var calls: [String] = []
        for (feature, file) in files {
            let own = try Self.ownTypes(of: feature, in: files)
            let text = try String(contentsOf: file, encoding: .utf8)
            for match in text.matches(of: /\b(\w+Feature)\.\w+\(/) where !own.contains(String(match.output.1)) {
                calls.append("\(file.lastPathComponent): \(match.output.0)")
            }
        }
        #expect(calls.isEmpty, "features ask each other through Effect.send(.request(…)), never by calling in: \(calls)")
    }

    @Test func everyFeatureReducesItsOwnStateNotTheApps() throws {
        let files = try Self.featureFiles()
        #expect(files.count > 10, "the feature files were found at \(Self.features.path)")
        let whole = try files.filter { try String(contentsOf: $0.file, encoding: .utf8).contains("AppState") }.map(\.file.lastPathComponent)
        #expect(whole.isEmpty, "a feature reduces its scope of the state (AppState+Scopes), never the whole app state: \(whole)")
    }
}
