import Foundation
import StorefrontTesting
import Testing

/// `storefront headless --cast`: a key script's session as an asciicast v2 file, played back
/// through a VT emulator (pyte, from PyPI) by `scripts/cast-play`.
@Suite("Recordings", .ownThreads)
struct CastTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../..").standardized
    static let demoKeys = "enter,a,c,enter,p,enter"

    /// Records `keys` on a fresh shop; returns the file's text.
    static func record(_ keys: String, extra: [String] = [], environment extraEnvironment: [String: String] = [:]) throws -> String {
        let home = TemporaryDirectory.make().path
        try FileManager.default.createDirectory(atPath: home, withIntermediateDirectories: true)
        let file = home + "/session.cast"
        var environment = ProcessInfo.processInfo.environment
        environment["XDG_CONFIG_HOME"] = home + "/config"
        environment["XDG_DATA_HOME"] = home + "/data"
        environment.merge(extraEnvironment) { $1 }
        let result = try Subprocess.run(
            try BuiltProduct.requireStorefront(),
            ["headless", "--data-dir", home + "/data", "--size", "80x24", "--keys", keys, "--cast", file] + extra, environment: environment)
        try #require(result.status == 0, "headless --cast failed: \(result.stderr)")
        #expect(result.stdout.contains("wrote \(file): \(keys.split(separator: ",").count) keys"))
        return try String(contentsOfFile: file, encoding: .utf8)
    }

    /// The screens `scripts/cast-play` shows after each event.
    static func play(_ cast: String) throws -> [String] {
        let file = TemporaryDirectory.make().path + ".cast"
        try cast.write(toFile: file, atomically: true, encoding: .utf8)
        let played = try Subprocess.run(root.appendingPathComponent("scripts/cast-play").path, [file])
        try #require(played.status != 69, "the VT emulator is missing: install the Python package pyte (python3 -m pip install pyte)")
        try #require(played.status == 0, "cast-play failed: \(played.stderr)")
        return played.stdout.split(separator: /--- event \d+ at [\d.]+ s ---\n/).map(String.init)
    }

    @Test func aPurchasePlayedThroughAVTEmulatorReachesTheThankYouFrame() throws {
        let cast = try Self.record(Self.demoKeys)
        let lines = cast.split(separator: "\n")
        let header = try #require(try JSONSerialization.jsonObject(with: Data(lines[0].utf8)) as? [String: Any])
        #expect(header["version"] as? Int == 2 && header["width"] as? Int == 80 && header["height"] as? Int == 24)
        // A steady pace: the first frame at 0, then one answer per key 400 ms apart, then q.
        let times = try lines.dropFirst().map { line in
            try #require((try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [Any])?.first as? Double)
        }
        let steady: [Double] = [0, 0.4, 0.8, 1.2, 1.6, 2, 2.4, 2.8]
        #expect(times == steady, "\(times)")
        #expect(cast.contains(#"\u001b[?1049h"#), "the real escape sequences: the alternate screen is entered")
        #expect(cast.components(separatedBy: #"\u001b[?1049h"#).count == 2, "once: no flash of the screen left and entered again at start")
        #expect(cast.components(separatedBy: #"\u001b[?1049l"#).count == 2, "and left once, at the end")

        let screens = try Self.play(cast)
        #expect(screens.first?.contains("Products") == true, "the first frame is the product list")
        let thanks = try #require(screens.first { $0.contains("Thank you") }, "a frame shows the paid order")
        #expect(thanks.contains("Order SF-000001 is paid."))
    }

    @Test func theDemoInTheRepositoryIsWhatTheShopRecordsToday() throws {
        let kept = try String(contentsOf: Self.root.appendingPathComponent("assets/demo.cast"), encoding: .utf8)
        #expect(try Self.record(Self.demoKeys) == kept, "assets/demo.cast is stale: run scripts/update-readme-screens")
    }

    /// Casts are made to be shared: the header names what was recorded, never the keys typed.
    @Test func aRecordingHoldsNoneOfTheCardTypedAndOnlyItsOwnerCanReadIt() throws {
        let card = "4,0,0,0,0,5,6,6,5,5,6,6,5,5,5,6,enter,1,1,/,3,1,enter,9,8,7,enter,S,e,c,r,e,t,enter,9,5,0,1,4,enter"
        let home = TemporaryDirectory.make().path
        try FileManager.default.createDirectory(atPath: home, withIntermediateDirectories: true)
        let file = home + "/card.cast"
        let result = try Subprocess.run(
            try BuiltProduct.requireStorefront(), ["headless", "--data-dir", home + "/data", "--keys", "u,n," + card, "--cast", file])
        try #require(result.status == 0, "\(result.stderr)")
        let cast = try String(contentsOfFile: file, encoding: .utf8)
        let header = try #require(try JSONSerialization.jsonObject(with: Data(cast.prefix { $0 != "\n" }.utf8)) as? [String: Any])
        #expect(header["title"] as? String == "storefront headless")
        for typed in ["4,0,0,0", "4000056655665556", "4000 0566", "987", "Secret", "9,8,7"] {
            #expect(!cast.contains(typed), "\(typed) is in the recording")
        }
        let mode = try #require(try FileManager.default.attributesOfItem(atPath: file)[.posixPermissions] as? Int)
        #expect(mode == 0o600, "mode \(String(mode, radix: 8))")
    }

    @Test func anExistingRecordingIsKeptUnlessForced() throws {
        let binary = try BuiltProduct.requireStorefront()
        let home = TemporaryDirectory.make().path
        try FileManager.default.createDirectory(atPath: home, withIntermediateDirectories: true)
        let file = home + "/kept.cast"
        try "someone else's recording\n".write(toFile: file, atomically: true, encoding: .utf8)
        let refused = try Subprocess.run(binary, ["headless", "--data-dir", home + "/data", "--keys", "down", "--cast", file])
        #expect(refused.status == 73)
        #expect(refused.stderr.contains("cannot write \(file): it exists; pass --force to replace it"), "\(refused.stderr)")
        #expect(try String(contentsOfFile: file, encoding: .utf8) == "someone else's recording\n")

        let forced = try Subprocess.run(binary, ["headless", "--data-dir", home + "/data", "--keys", "down", "--cast", file, "--force"])
        #expect(forced.status == 0, "\(forced.stderr)")
        #expect(try String(contentsOfFile: file, encoding: .utf8).hasPrefix(#"{"env""#))
        let mode = try #require(try FileManager.default.attributesOfItem(atPath: file)[.posixPermissions] as? Int)
        #expect(mode == 0o600, "a replaced file is owner-only too: \(String(mode, radix: 8))")
        #expect(try FileManager.default.contentsOfDirectory(atPath: home).sorted() == ["data", "kept.cast"], "no partial file left behind")
    }

    /// The quit the recorder appends would be typed into a form: it leaves the form first.
    @Test("a script that ends inside a form still gives its recording", arguments: ["u,i,j", "u,n,4,2", "u,d,J"])
    func aScriptEndingInsideAFormIsRecorded(keys: String) throws {
        let cast = try Self.record(keys)
        let screens = try Self.play(cast)
        #expect(screens.contains { $0.contains("(A form is open: what is typed in it is not recorded.)") }, "the script did reach a form")
        #expect(cast.contains(#"\u001b[?1049l"#), "the shop ended and gave the terminal back")
    }

    @Test func aBadPaceOrAMissingFolderIsRefusedBeforeAnythingRuns() throws {
        let binary = try BuiltProduct.requireStorefront()
        let pace = try Subprocess.run(binary, ["headless", "--keys", "a", "--cast", "/tmp/x.cast", "--pace", "fast"])
        #expect(pace.status == 64)
        #expect(pace.stderr.contains(#"--pace "fast" is not a duration like 400ms or 1s"#))
        let folder = try Subprocess.run(binary, ["headless", "--keys", "a", "--cast", "/nonexistent-folder/x.cast"])
        #expect(folder.status == 73)
        #expect(folder.stderr.contains("cannot write /nonexistent-folder/x.cast: the folder /nonexistent-folder does not exist"))
    }

    /// Real SGR mouse reports (ESC [ < 0 ; col ; row M, then m) through a real pty.
    @Test func clicksInAPtySelectOpenAndPressAFooterHint() throws {
        // Row 6 is the fourth product; a second click on it opens it; the footer's "a add" starts at column 2.
        let cast = try Self.record("click@10x6,click@10x6,click@3x24")
        let last = try #require(try Self.play(cast).last)
        #expect(last.contains("Grid Notebook") && last.contains("cart: 1 item"), "opened the clicked product and added it: \(last)")
    }

    @Test func withTheMouseOffClicksDoNothing() throws {
        let cast = try Self.record("click@10x6,click@10x6", environment: ["STOREFRONT_MOUSE": "off"])
        // ncurses asks for SGR reports and clicks in one sequence, ESC [ ? 1006 ; 1000 h.
        #expect(!cast.contains(#"\u001b[?1006;1000h"#), "the terminal was never asked for mouse reports")
        #expect(try Self.record("q").contains(#"\u001b[?1006;1000h"#), "as it is with the mouse on")
        let last = try #require(try Self.play(cast).dropLast().last)
        #expect(last.contains("1 of 24"), "the selection did not move: \(last)")
    }

    /// `run --record` in a real terminal: the shopper sees the card form, the file never holds what was typed in it.
    @Test func aLiveRecordingLeavesOutWhatIsTypedInAForm() throws {
        let directory = TemporaryDirectory.make().path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let file = directory + "/live.cast"
        let terminal = try TmuxTerminal(environment: ["STOREFRONT_SANDBOX_TEST_CARDS": "off"])
        try terminal.type("\(try BuiltProduct.requireStorefront()) run --data-dir \(directory)/data --record \(file); echo EXIT=$?")
        try terminal.waitFor("q quit")
        try terminal.press("u")
        try terminal.waitFor("No cards yet")
        try terminal.press("n")
        try terminal.waitFor("Add a card")
        try terminal.fill(["4000056655665556", "11/31", "987", "Secret Shopper", "95014"])
        try terminal.waitFor("Saved Visa ••5556")
        try terminal.resize(columns: 90, rows: 30)
        try terminal.waitUntil("the shop redraws at 90x30") {
            $0.split(separator: "\n", omittingEmptySubsequences: false).count >= 30 && $0.contains("Your account") && $0.contains("q quit")
        }
        try terminal.press("q")
        try terminal.waitFor("EXIT=0")

        let cast = try String(contentsOfFile: file, encoding: .utf8)
        // What the recording shows and says, its events' text without their times: a time of 0.987 s is no card code.
        let recorded = try cast.split(separator: "\n").dropFirst().map { line in
            let event = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [Any], "\(line)")
            return event.dropFirst().compactMap { $0 as? String }.joined(separator: " ")
        }.joined(separator: "\n")
        // The expiry is not secret (the account screen shows it once saved); the number, code and name typed are.
        for typed in ["4000056655665556", "4000 0566", "5566", "987", "Secret Shopper"] {
            #expect(!recorded.contains(typed), "\(typed) is not in the recording")
        }
        let screens = try Self.play(cast)
        #expect(screens.contains { $0.contains("(A form is open: what is typed in it is not recorded.)") })
        let after = try #require(screens.last { $0.contains("Saved Visa ••5556") }, "the screen after the form is whole again")
        #expect(after.contains("Your account") && after.contains("Visa ••5556"), "\(after)")
        #expect(!after.contains("form is open"), "the placeholder is painted over by the repaint")
        // asciicast v2: a resize is an "r" event with the new size, before what is drawn at it.
        let resize = try #require(cast.split(separator: "\n").firstIndex { $0.hasSuffix(#","r","90x30"]"#) }, "a resize event")
        #expect(cast.split(separator: "\n").count > resize + 1)
        let mode = try #require(try FileManager.default.attributesOfItem(atPath: file)[.posixPermissions] as? Int)
        #expect(mode == 0o600)
    }
}
