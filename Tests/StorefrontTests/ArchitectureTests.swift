import Foundation
import ShopModels
import StorefrontCore
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
        #expect(calls.isEmpty, "features ask each other through their action's .delegate case, never by calling in: \(calls)")
    }

    /// A `default:` would take a case added to a feature's action, or a key added to the table, without a word: every
    /// switch in the app's reducers and features names each case it takes.
    @Test func noSwitchInTheFeaturesOrTheirRootHasADefault() throws {
        let core = Self.features.deletingLastPathComponent()
        var found: [String] = []
        for folder in ["App", "Features", "Shared"] {
            let files = try #require(FileManager.default.enumerator(at: core.appendingPathComponent(folder), includingPropertiesForKeys: nil))
            for case let file as URL in files where file.pathExtension == "swift" {
                let lines = try String(contentsOf: file, encoding: .utf8).split(separator: "\n", omittingEmptySubsequences: false)
                for (index, line) in lines.enumerated() where line.trimmingCharacters(in: .whitespaces).hasPrefix("default:") {
                    found.append("\(file.lastPathComponent):\(index + 1)")
                }
            }
        }
        #expect(found.isEmpty, "a switch in StorefrontCore names its cases: \(found)")
    }

    @Test func everyFeatureReducesItsOwnStateNotTheApps() throws {
        let files = try Self.featureFiles()
        #expect(files.count > 10, "the feature files were found at \(Self.features.path)")
        let whole = try files.filter { try String(contentsOf: $0.file, encoding: .utf8).contains("AppState") }.map(\.file.lastPathComponent)
        #expect(whole.isEmpty, "a feature reduces its scope of the state (AppState.scope), never the whole app state: \(whole)")
    }

    /// The screens are made from the features' states by hand, in one place: a field of `StorefrontState` that place
    /// forgets would show its default on every screen, whatever the feature did.
    @Test func everyFieldTheScreensShowIsMadeFromTheFeaturesStates() throws {
        let source = Self.features.deletingLastPathComponent().appendingPathComponent("App/AppState+Screens.swift")
        let text = try String(contentsOf: source, encoding: .utf8)
        let made = Set(text.matches(of: #/in: &screens\.(\w+)\)/#).map { String($0.output.1) })
        // A field kept out of line (`@OutOfLine`) is mirrored by its wrapper's storage, `_name`.
        let fields = Set(
            Mirror(reflecting: StorefrontState(shopName: "", currency: .usd)).children.compactMap(\.label).map {
                $0.hasPrefix("_") ? String($0.dropFirst()) : $0
            })
        #expect(fields.count > 20, "StorefrontState's fields were read: \(fields.sorted())")
        #expect(fields.subtracting(made).sorted() == [], "each field is set in AppState+Screens")
        #expect(made.subtracting(fields).sorted() == [], "AppState+Screens sets no field StorefrontState lacks")
    }

    @Test func everyTargetOfThePackageHasItsRowInTheArchitecturePage() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../..").standardizedFileURL
        let manifest = try String(contentsOf: root.appendingPathComponent("Package.swift"), encoding: .utf8)
        let declaration = /\.(?:target|executableTarget|testTarget|systemLibrary|plugin)\(\s*name:\s*"([^"]+)"/
        let targets = manifest.matches(of: declaration).map { String($0.output.1) }
        #expect(targets.count > 25, "the targets were read from Package.swift: \(targets)")
        let page = try String(contentsOf: root.appendingPathComponent("docs/architecture.md"), encoding: .utf8)
        // The first cell of each row of the targets' table: `Name`, or `Name` (+ `CPart`).
        let named = Set(
            page.split(separator: "\n").filter { $0.hasPrefix("| `") }.flatMap { row in
                row.split(separator: "|", omittingEmptySubsequences: true).first.map { cell in
                    cell.matches(of: /`([^`]+)`/).map { String($0.output.1) }
                } ?? []
            })
        #expect(targets.filter { !named.contains($0) } == [], "each target is described in docs/architecture.md's table")
        #expect(named.subtracting(targets).sorted() == [], "the table names no target the package does not have")
    }

    /// Every suite of the integration target runs on threads of its own (docs/testing.md): read from the sources, so
    /// a new suite cannot leave its blocking waits on the threads every other test shares.
    @Test func everyIntegrationSuiteHasThreadsOfItsOwn() throws {
        let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("../StorefrontIntegrationTests").standardizedFileURL
        let files = try #require(FileManager.default.enumerator(at: folder, includingPropertiesForKeys: nil)?.allObjects as? [URL])
        var suites = 0
        var without: [String] = []
        for file in files where file.pathExtension == "swift" {
            let text = try String(contentsOf: file, encoding: .utf8)
            for suite in text.matches(of: /@Suite(\((?:[^()"]|"(?:[^"\\]|\\.)*"|\([^()]*\))*\))?/) {
                suites += 1
                if !suite.output.0.contains(".ownThreads") { without.append("\(file.lastPathComponent): \(suite.output.0)") }
            }
        }
        #expect(suites > 100, "the suites were found")
        #expect(without == [], "suites without .ownThreads")
    }

    /// The glossary (docs/architecture.md, Words) keeps "store" for the runtime: a port to stored data is a
    /// repository, and every port the architecture page names as one exists under that name.
    @Test func portsToStoredDataAreRepositoriesNotStores() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../..").standardizedFileURL
        let ports = root.appendingPathComponent("Sources/ShopPorts")
        var protocols: [String] = []
        for file in try FileManager.default.contentsOfDirectory(at: ports, includingPropertiesForKeys: nil) where file.pathExtension == "swift" {
            let text = try String(contentsOf: file, encoding: .utf8)
            protocols += text.matches(of: /public protocol (\w+)/).map { String($0.output.1) }
        }
        #expect(protocols.count > 10, "the ports were read: \(protocols)")
        #expect(protocols.filter { $0.hasSuffix("Store") } == [], "ports named as stores")
        let page = try String(contentsOf: root.appendingPathComponent("docs/architecture.md"), encoding: .utf8)
        // The glossary's entry for the word, up to the next entry: the implementations named elsewhere are not ports.
        let entry = try #require(page.firstRange(of: "- **repository**:").map { page[$0.lowerBound...] })
        let glossary = entry.prefix(upTo: entry.dropFirst().firstRange(of: "\n- **")?.lowerBound ?? entry.endIndex)
        let named = glossary.matches(of: /`(\w+Repository)`/).map { String($0.output.1) }
        #expect(Set(named).subtracting(protocols).sorted() == [], "repositories the glossary names that ShopPorts does not declare")
    }

    /// Each module whose row in docs/architecture.md states "at most N lines" stays within it, so a command's work that
    /// lands in the executable instead of `ShopCommands` fails here, and a lower ceiling is a one-line edit. The
    /// executable only starts: its row must state such a ceiling, under 1,000 lines.
    @Test func everyModuleStaysWithinTheLinesTheArchitecturePageStates() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../..").standardizedFileURL
        let page = try String(contentsOf: root.appendingPathComponent("docs/architecture.md"), encoding: .utf8)
        var ceilings: [String: Int] = [:]
        for row in page.split(separator: "\n") {
            guard let name = row.firstMatch(of: /^\| `(\w[\w-]*)` \|/)?.output.1,
                let stated = row.firstMatch(of: /at most ([0-9,]+) lines/).flatMap({ Int($0.output.1.replacing(",", with: "")) })
            else { continue }
            ceilings[String(name)] = stated
        }
        #expect(try #require(ceilings["storefront"], "the executable's row states its ceiling") < 1_000)
        for (module, stated) in ceilings.sorted(by: { $0.key < $1.key }) {
            let folder = root.appendingPathComponent("Sources/\(module)")
            var lines = 0
            for file in try FileManager.default.contentsOfDirectory(at: folder, includingPropertiesForKeys: nil) where file.pathExtension == "swift" {
                lines += try String(contentsOf: file, encoding: .utf8).split(separator: "\n", omittingEmptySubsequences: false).count - 1
            }
            #expect(lines > 10, "\(module)'s sources were read")
            #expect(lines <= stated, "Sources/\(module) is \(lines) lines, over the \(stated) docs/architecture.md states")
        }
    }
}
